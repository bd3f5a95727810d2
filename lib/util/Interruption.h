#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <stdexcept>
#include <thread>

namespace nmt {

// Thrown when a long call was asked to stop: its work is left unfinished and nothing is returned.
class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted") {}
};

// How a long call (Translator::translate, score) stops between its parts when its caller asks:
// `asked` is the caller's question (Python: was Ctrl-C pressed?), put only on the thread that made
// the call and at most every `every`; the call's other threads read the answer. Without a question,
// nothing is asked and nothing stops.
class Interruption {
 public:
  explicit Interruption(std::function<bool()> asked,
                        std::chrono::milliseconds every = std::chrono::milliseconds(20));

  // Between two parts of the work, on any of the call's threads: Interrupted once the caller asked to stop.
  void check();
  // Runs `work` (which calls check() between its parts) on another thread while this one asks; then
  // what `work` threw, or Interrupted when the caller asked meanwhile. Without a question, runs it here.
  void whileAsking(const std::function<void()>& work);

 private:
  bool ask();  // on the calling thread: asks when `every` has passed; true once the answer was stop

  std::function<bool()> asked_;
  std::chrono::milliseconds every_;
  std::thread::id caller_;
  std::chrono::steady_clock::time_point lastAsked_;
  std::atomic<bool> stop_{false};
};

}  // namespace nmt
