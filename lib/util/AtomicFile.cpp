#include "util/AtomicFile.h"

#include "util/FileSystem.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace nmt {
namespace {

void syncPath(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0) throw WriteError("cannot open " + path + " to flush it: " + std::strerror(errno));
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) throw WriteError("cannot write " + path + ": " + std::strerror(err));
}

}  // namespace

void replaceFileAtomically(const std::string& path, const std::function<void(const std::string& tmpPath)>& write) {
  const std::string tmp = path + ".tmp";
  try {
    write(tmp);
    syncPath(tmp, O_RDONLY);
    files::rename(tmp, path);
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  const std::string dir = files::parentDirectory(path);
  syncPath(dir.empty() ? "." : dir, O_RDONLY | O_DIRECTORY);
}

void writeTextFileAtomically(const std::string& path, const std::string& text) {
  OutputFile out(path);
  out.stream() << text;
  out.commit();
}

void copyFileAtomically(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + from + ": " + std::strerror(errno));
  OutputFile out(to);
  out.stream() << in.rdbuf();
  if (in.bad()) throw std::runtime_error("cannot read " + from + ": " + std::strerror(errno));
  out.commit();
}

}  // namespace nmt
