#pragma once

#include <string>
#include <vector>

// File-system work on plain POSIX calls, never std::filesystem: the LibTorch inside PyTorch's
// wheels exports its own statically linked copy of libstdc++'s std::filesystem, and the
// dynamic linker may bind our calls to it (pytorch/pytorch#133437), where remove_all jumped
// to address 0. The test `build.no-std-filesystem` keeps every program free of those symbols.
namespace nmt::files {

bool exists(const std::string& path);
bool isDirectory(const std::string& path);

// mkdir -p; throws std::runtime_error naming the path and the system's reason.
void createDirectories(const std::string& path);
// Removes a file if it is there; throws on any other failure.
void removeFile(const std::string& path);
// rm -rf; a missing path is not an error. Returns false if something could not be removed.
bool removeAll(const std::string& path) noexcept;
// The names in a directory (no "." or ".."), sorted; throws naming the directory when unreadable.
std::vector<std::string> listDirectory(const std::string& path);
// rename(2): atomic within one file system; throws naming both paths.
void rename(const std::string& from, const std::string& to);
// fsync(2) of a file, or of a directory (its entries: a rename done); throws "cannot write PATH: REASON".
void syncToDisk(const std::string& path);

// "a/b/c" -> "a/b", "c" -> "", "/c" -> "/".
std::string parentDirectory(const std::string& path);
// The path made absolute against the working directory, with ".", ".." and repeated '/'
// resolved lexically (symbolic links are kept as written).
std::string absolutePath(const std::string& path);
// realpath(3), or "" when the path does not resolve.
std::string canonicalPath(const std::string& path);
// The running program's own file (/proc/self/exe), or "" where that is unknown.
std::string executablePath();
// $TMPDIR, else /tmp.
std::string temporaryDirectory();
// A new, empty directory under temporaryDirectory() named PREFIX-XXXXXX; throws on failure.
std::string makeTemporaryDirectory(const std::string& prefix);

}  // namespace nmt::files
