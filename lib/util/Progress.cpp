#include "util/Progress.h"

#include <unistd.h>

namespace nmt {

Progress::Progress(std::FILE* stream) : stream_(stream), terminal_(stream && ::isatty(::fileno(stream)) != 0) {}

void Progress::status(const std::string& line) {
  if (!terminal_) return;
  const auto now = std::chrono::steady_clock::now();
  if (statusShown_ && now - lastDraw_ < std::chrono::milliseconds(250)) return;
  lastDraw_ = now;
  std::fprintf(stream_, "\r\033[K%s", line.c_str());
  std::fflush(stream_);
  statusShown_ = true;
}

void Progress::message(const std::string& line) {
  if (!stream_) return;
  if (statusShown_) std::fprintf(stream_, "\r\033[K");
  statusShown_ = false;
  std::fprintf(stream_, "%s\n", line.c_str());
  std::fflush(stream_);
}

}  // namespace nmt
