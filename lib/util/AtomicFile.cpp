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
  if (fd < 0) throw std::runtime_error("cannot open " + path + " to flush it: " + std::strerror(errno));
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) throw std::runtime_error("cannot flush " + path + " to disk: " + std::strerror(err));
}

}  // namespace

void replaceFileAtomically(const std::string& path, const std::function<void(const std::string& tmpPath)>& write) {
  const std::string tmp = path + ".tmp";
  write(tmp);
  syncPath(tmp, O_RDONLY);
  files::rename(tmp, path);
  const std::string dir = files::parentDirectory(path);
  syncPath(dir.empty() ? "." : dir, O_RDONLY | O_DIRECTORY);
}

void writeTextFileAtomically(const std::string& path, const std::string& text) {
  replaceFileAtomically(path, [&](const std::string& tmp) {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) throw std::runtime_error("cannot write " + tmp + ": " + std::strerror(errno));
  });
}

void copyFileAtomically(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + from + ": " + std::strerror(errno));
  replaceFileAtomically(to, [&](const std::string& tmp) {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << in.rdbuf();
    out.close();
    if (!out) throw std::runtime_error("cannot write " + tmp + ": " + std::strerror(errno));
  });
}

}  // namespace nmt
