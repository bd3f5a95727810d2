#pragma once

#include <chrono>

namespace nmt {

// Seconds of wall-clock time (steady clock) since construction or the last restart().
class Stopwatch {
 public:
  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  void restart() { start_ = Clock::now(); }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_ = Clock::now();
};

}  // namespace nmt
