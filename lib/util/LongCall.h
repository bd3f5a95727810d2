#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <thread>

namespace nmt {

// Thrown when a long call was asked to stop: its work is left unfinished and nothing is returned.
class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted") {}
};

// A long call's (Translator::translate, score) exchanges with its caller, made on the thread that
// made the call only and at most every `every`: how far it got (`progress`: the sentences done so
// far, for a progress bar), and whether to stop (`interrupted`: Python's Ctrl-C). The call's other
// threads add what they finish and read the answer. Either hook may be empty.
class LongCall {
 public:
  LongCall(std::function<bool()> interrupted, std::function<void(std::size_t)> progress = {},
           std::chrono::milliseconds every = std::chrono::milliseconds(20));

  // `count` more sentences done (any thread).
  void advance(std::size_t count) { done_ += count; }
  // Between two parts of the work, on any of the call's threads: on the calling thread, tells the
  // progress and asks; Interrupted once the caller asked to stop. What the progress hook throws
  // comes out here (the call stops).
  void check();
  // Runs `work` (which calls check() between its parts) on another thread while this one tells and
  // asks; then what `work` threw, Interrupted when the caller asked meanwhile, or what the progress
  // hook threw. Without hooks, runs it here.
  void whileAsking(const std::function<void()>& work);
  // At the call's end, on the calling thread: the last progress, when it was not told yet.
  void finish();

 private:
  // On the calling thread, when `every` has passed (or now): tells the progress, and asks (with `ask`).
  bool exchange(bool now, bool ask);

  std::function<bool()> interrupted_;
  std::function<void(std::size_t)> progress_;
  std::chrono::milliseconds every_;
  std::thread::id caller_;
  std::chrono::steady_clock::time_point last_;
  std::atomic<std::size_t> done_{0};
  std::size_t told_ = 0;
  std::atomic<bool> stop_{false};
};

}  // namespace nmt
