#include "util/OutputTarget.h"

#include "util/FileSystem.h"
#include "util/OutputFile.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

namespace nmt {
namespace {

constexpr int kMaxLinks = 40;  // as the kernel's own limit (ELOOP)

[[noreturn]] void fail(const std::string& path, int error) {
  throw WriteError("cannot write " + path + ": " + std::strerror(error));
}

bool startsWith(const std::string& text, const std::string& prefix) { return text.compare(0, prefix.size(), prefix) == 0; }

// N for /proc/self/fd/N, /proc/thread-self/fd/N, /proc/PID/fd/N (this process) and /dev/fd/N; else -1.
int ownDescriptor(const std::string& path) {
  const std::string absolute = files::absolutePath(path);
  const std::string own = "/proc/" + std::to_string(::getpid()) + "/fd/";
  for (const std::string prefix : {std::string("/proc/self/fd/"), std::string("/proc/thread-self/fd/"), std::string("/dev/fd/"), own}) {
    if (!startsWith(absolute, prefix)) continue;
    const std::string digits = absolute.substr(prefix.size());
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return -1;
    return std::stoi(digits);
  }
  return -1;
}

// The path a symbolic link points to, relative targets taken from the link's directory.
std::string linkTarget(const std::string& link) {
  std::string target(PATH_MAX, '\0');
  const ssize_t n = ::readlink(link.c_str(), target.data(), target.size());
  if (n < 0) fail(link, errno);
  target.resize(static_cast<std::size_t>(n));
  if (target.empty() || target.front() == '/') return target;
  const std::string dir = files::parentDirectory(link);
  return dir.empty() ? target : (dir.back() == '/' ? dir : dir + "/") + target;
}

int connectSocket(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof(address.sun_path)) {
    errno = ENAMETOOLONG;
    return -1;
  }
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    const int error = errno;
    ::close(fd);
    errno = error;
    return -1;
  }
  return fd;
}

}  // namespace

OutputTarget outputTarget(const std::string& path, mode_t newFileMode) {
  std::string current = path;
  for (int links = 0; links <= kMaxLinks; ++links) {
    // Descriptors and /proc's other files: what they lead to is not a file to rename over.
    if (ownDescriptor(current) >= 0 || startsWith(files::absolutePath(current), "/proc/"))
      return {OutputTarget::Kind::Direct, current, 0, false};
    struct stat info {};
    if (::lstat(current.c_str(), &info) != 0) {
      if (errno == ENOENT) return {OutputTarget::Kind::Replace, current, newFileMode, false};  // a new file
      fail(path, errno);
    }
    if (S_ISLNK(info.st_mode)) {
      current = linkTarget(current);
      continue;
    }
    if (S_ISDIR(info.st_mode)) fail(path, EISDIR);
    if (S_ISREG(info.st_mode))
      return {OutputTarget::Kind::Replace, current, static_cast<mode_t>(info.st_mode & 07777), true};
    return {OutputTarget::Kind::Direct, current, 0, false};  // a device, a FIFO or a socket
  }
  fail(path, ELOOP);
}

int openDirectTarget(const std::string& path) {
  if (const int own = ownDescriptor(path); own >= 0) return ::fcntl(own, F_DUPFD_CLOEXEC, 0);
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0 && S_ISSOCK(info.st_mode)) return connectSocket(path);
  return ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
}

}  // namespace nmt
