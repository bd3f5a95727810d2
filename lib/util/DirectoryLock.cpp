#include "util/DirectoryLock.h"

#include "util/InputError.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace nmt {

DirectoryLock::DirectoryLock(const std::string& folder, const std::string& program, const std::string& otherwise) {
  const std::string path = fileIn(folder);
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw InputError("cannot lock " + folder + ": cannot open " + path + ": " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    std::string holder(256, '\0');
    const ssize_t n = ::pread(fd_, holder.data(), holder.size(), 0);
    holder.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\0')) holder.pop_back();
    ::close(fd_);
    if (error != EWOULDBLOCK) throw InputError("cannot lock " + folder + ": " + std::strerror(error));
    throw InputError(folder + " is in use by " + (holder.empty() ? "another process" : holder) +
                     "; wait for it to end or " + otherwise);
  }
  // "nmt-train (process 1234)": what the next one's message says
  const std::string holder = program + " (process " + std::to_string(::getpid()) + ")\n";
  // without the note the lock still holds; the next one's message then says "another process"
  (void)(::ftruncate(fd_, 0) == 0 && ::pwrite(fd_, holder.data(), holder.size(), 0) > 0);
}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0) ::close(fd_);  // closing drops the lock; the file stays (removing it would race)
}

}  // namespace nmt
