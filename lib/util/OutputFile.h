#pragma once

#include <sys/types.h>

#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>

namespace nmt {

// A write that failed: "cannot write FILE: REASON".
class WriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// After a rename onto `path`: its folder's entries flushed to disk (the new name survives a crash);
// WriteError "cannot write FOLDER: REASON" when that fails.
void syncNewName(const std::string& path);

// A program's output written as a whole: into PATH.tmp beside PATH, flushed to disk and renamed
// over PATH by commit(), so that PATH holds either what it held before or the complete new
// output; an OutputFile destroyed without commit() removes its temporary file. That is for a
// regular file or a new one; a link is followed to its file, and a device, a FIFO, a socket or
// /proc/self/fd/N is written in place (OutputTarget says which). A failed write,
// flush or close (a full disk) throws WriteError "cannot write PATH: REASON" with the system's
// reason from the next flush() or commit(); the stream itself never fails (what follows a failed
// write is dropped), so that writers such as LibTorch's archives run to their end.
// PATH "-" is standard output: written through the same checks, with nothing to rename.
class OutputFile {
 public:
  // newFileMode: the permissions of a file that is not there yet (a replaced file keeps its own).
  explicit OutputFile(const std::string& path, mode_t newFileMode = 0644);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::ostream& stream() { return stream_; }
  // Hands what is buffered to the file (or the pipe or terminal); throws if a write failed.
  void flush();
  // flush(), then (a file replaced) fsync, close and rename over PATH, then fsync its directory;
  // (written in place) close.
  void commit();
  // "standard output" or PATH.
  const std::string& name() const { return name_; }

 private:
  class Buffer;
  std::string path_, tmp_, name_;  // path_: the file renamed over (links followed); tmp_ "" when none
  std::unique_ptr<Buffer> buffer_;
  std::ostream stream_;
  bool ownsDescriptor_ = false;  // not for standard output ("-")
  bool committed_ = false;
};

}  // namespace nmt
