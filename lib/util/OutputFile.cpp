#include "util/OutputFile.h"

#include "util/FileSystem.h"
#include "util/OutputTarget.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace nmt {

// A stream buffer over a file descriptor that keeps the first write error (errno) instead of
// losing it in an iostream state bit, so that the message can say why. After an error it takes
// and drops whatever comes, so that no writer fails halfway: LibTorch's archive writer, failing,
// throws again from its destructor and ends the process. flush() and commit() report the error.
class OutputFile::Buffer : public std::streambuf {
 public:
  explicit Buffer(int fd) : fd_(fd), data_(64 * 1024) { setp(data_.data(), data_.data() + data_.size()); }

  int fd() const { return fd_; }
  int error() const { return error_; }

  // Writes out the buffer; false (error() says why) when that fails.
  bool drain() {
    const char* p = pbase();
    std::size_t left = static_cast<std::size_t>(pptr() - pbase());
    while (left > 0 && error_ == 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0) {
        if (errno != EINTR) error_ = errno;
        continue;
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    setp(data_.data(), data_.data() + data_.size());
    return error_ == 0;
  }

 protected:
  int_type overflow(int_type c) override {
    drain();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override {
    drain();
    return 0;
  }

 private:
  int fd_;
  std::vector<char> data_;
  int error_ = 0;
};

namespace {

[[noreturn]] void fail(const std::string& name, int error) {
  throw WriteError("cannot write " + name + ": " + std::strerror(error));
}

}  // namespace

OutputFile::OutputFile(const std::string& path, mode_t newFileMode)
    : path_(path), name_(path == "-" ? "standard output" : path), stream_(nullptr) {
  int fd = STDOUT_FILENO;
  if (path == "-") {
    std::fflush(stdout);  // what stdio holds goes first
  } else if (const auto target = outputTarget(path, newFileMode); target.kind == OutputTarget::Kind::Direct) {
    std::fflush(nullptr);  // what stdio holds for it (/dev/stdout) goes first
    fd = openDirectTarget(target.file);
    if (fd < 0) fail(name_, errno);
    ownsDescriptor_ = true;
  } else {
    path_ = target.file;
    tmp_ = target.file + ".tmp";
    fd = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, target.mode);
    if (fd < 0) fail(name_, errno);
    if (target.replacesFile && ::fchmod(fd, target.mode) != 0) {  // the replaced file's permissions, umask or not
      const int error = errno;
      ::close(fd);
      ::unlink(tmp_.c_str());
      fail(name_, error);
    }
    ownsDescriptor_ = true;
  }
  buffer_ = std::make_unique<Buffer>(fd);
  stream_.rdbuf(buffer_.get());
}

OutputFile::~OutputFile() {
  if (committed_) return;
  if (tmp_.empty()) {
    buffer_->drain();  // written in place: what was written goes out (a failure was for flush() to report)
    if (ownsDescriptor_) ::close(buffer_->fd());
    return;
  }
  ::close(buffer_->fd());
  ::unlink(tmp_.c_str());
}

void OutputFile::flush() {
  if (!buffer_->drain()) fail(name_, buffer_->error());
}

void OutputFile::commit() {
  if (committed_) return;
  flush();
  if (tmp_.empty()) {  // standard output or written in place: nothing to rename
    if (!ownsDescriptor_) return;
    committed_ = true;
    if (::close(buffer_->fd()) != 0) fail(name_, errno);
    return;
  }
  if (::fsync(buffer_->fd()) != 0) fail(name_, errno);
  const int closed = ::close(buffer_->fd());
  committed_ = true;  // the descriptor is gone either way; a failure below removes the file here
  if (closed != 0) {
    const int error = errno;
    ::unlink(tmp_.c_str());
    fail(name_, error);
  }
  try {
    files::rename(tmp_, path_);
  } catch (...) {
    ::unlink(tmp_.c_str());
    throw;
  }
  syncNewName(path_);
}

void syncNewName(const std::string& path) {
  const std::string dir = files::parentDirectory(path);
  try {
    files::syncToDisk(dir.empty() ? "." : dir);
  } catch (const std::runtime_error& e) {
    throw WriteError(e.what());
  }
}

}  // namespace nmt
