#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace nmt {

// Reports a long job: on a terminal, one live status line redrawn in place (at most a few times
// a second); elsewhere no status, which changes too often for a log. Messages always get a line.
// A null stream reports nothing (the workers of a distributed run other than rank 0).
class Progress {
 public:
  explicit Progress(std::FILE* stream);

  bool terminal() const { return terminal_; }
  // The live status (terminal only; ignored otherwise).
  void status(const std::string& line);
  // A permanent line: clears the live status first.
  void message(const std::string& line);

 private:
  std::FILE* stream_;
  bool terminal_;
  bool statusShown_ = false;
  std::chrono::steady_clock::time_point lastDraw_{};
};

}  // namespace nmt
