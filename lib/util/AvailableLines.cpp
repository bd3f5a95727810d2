#include "util/AvailableLines.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace nmt {

bool AvailableLines::fill(bool block) {
  if (eof_) return false;
  if (!block) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0) return false;
  }
  char chunk[65536];
  ssize_t n;
  do {
    n = ::read(fd_, chunk, sizeof chunk);
  } while (n < 0 && errno == EINTR);
  if (n < 0) throw std::runtime_error(std::string("cannot read input: ") + std::strerror(errno));
  if (n == 0) {
    eof_ = true;
    return false;
  }
  buffer_.append(chunk, static_cast<std::size_t>(n));
  return true;
}

bool AvailableLines::takeLine(std::string& line) {
  const auto end = buffer_.find('\n');
  if (end == std::string::npos) {
    if (!eof_ || buffer_.empty()) return false;
    line = std::move(buffer_);  // the last line, without '\n'
    buffer_.clear();
    return true;
  }
  line = buffer_.substr(0, end);
  buffer_.erase(0, end + 1);
  return true;
}

bool AvailableLines::next(std::vector<std::string>& lines, std::size_t max) {
  std::string line;
  const std::size_t before = lines.size();
  // at least one line: block until there is one or the input ends
  while (!takeLine(line))
    if (!fill(true) && eof_ && buffer_.empty()) return false;
  lines.push_back(std::move(line));
  // then whatever is there already
  while (lines.size() - before < max) {
    if (takeLine(line)) {
      lines.push_back(std::move(line));
    } else if (!fill(false)) {
      break;
    }
  }
  return true;
}

}  // namespace nmt
