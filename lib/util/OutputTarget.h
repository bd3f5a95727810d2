#pragma once

#include <sys/types.h>

#include <string>

namespace nmt {

// What writing to a path means, decided once from what the path is now: the one rule every file a
// program writes goes through (OutputFile).
// - A regular file, or a path with nothing there yet, is replaced whole: written beside itself
//   under a temporary name, then renamed over. Symbolic links are followed first, so the file a
//   link points to is replaced and the link stays a link.
// - Anything else (a character or block device, a FIFO, a socket, /proc/self/fd/N, /dev/fd/N,
//   /dev/stdout) is written in place: renaming over it would replace a device or a pipe with a
//   regular file.
struct OutputTarget {
  enum class Kind { Replace, Direct };
  Kind kind = Kind::Replace;
  // Replace: the regular file to replace (links followed); Direct: the path as given.
  std::string file;
  // Replace: the new file's permissions (the replaced file's, else the ones asked for).
  mode_t mode = 0644;
  // Replace: a file is there, whose permissions the new one takes whatever the umask says.
  bool replacesFile = false;
};

// Throws WriteError "cannot write PATH: REASON" for a directory, a loop of links or a path that
// cannot be looked at.
OutputTarget outputTarget(const std::string& path, mode_t newFileMode = 0644);

// Opens a Direct target for writing (a descriptor of this process for /proc/self/fd/N and its
// aliases, duplicated so that appending and offsets stay the shell's); WriteError when it cannot.
int openDirectTarget(const std::string& path);

}  // namespace nmt
