#include "util/LongCall.h"

#include <future>

namespace nmt {

LongCall::LongCall(std::function<bool()> interrupted, std::function<void(std::size_t)> progress,
                   std::chrono::milliseconds every)
    : interrupted_(std::move(interrupted)), progress_(std::move(progress)), every_(every),
      caller_(std::this_thread::get_id()), last_(std::chrono::steady_clock::now()) {}

bool LongCall::exchange(bool now, bool ask) {
  const auto time = std::chrono::steady_clock::now();
  if (!now && time - last_ < every_) return stop_;
  last_ = time;
  const std::size_t done = done_;
  if (progress_ && done != told_) {
    told_ = done;
    try {
      progress_(done);
    } catch (...) {
      stop_ = true;  // the call's other threads stop at their next check()
      throw;
    }
  }
  if (ask && !stop_ && interrupted_ && interrupted_()) stop_ = true;
  return stop_;
}

void LongCall::check() {
  if (stop_) throw Interrupted();
  if ((interrupted_ || progress_) && std::this_thread::get_id() == caller_ && exchange(false, true)) throw Interrupted();
}

void LongCall::whileAsking(const std::function<void()>& work) {
  if (!interrupted_ && !progress_) return work();
  auto running = std::async(std::launch::async, work);
  try {
    while (running.wait_for(every_) != std::future_status::ready) exchange(false, true);
  } catch (...) {  // the progress hook threw: its error, once the work has stopped
    try {
      running.get();
    } catch (...) {
    }
    throw;
  }
  running.get();  // what the work threw (Interrupted, once stopped) comes out here
  if (stop_) throw Interrupted();  // asked while the work was ending anyway: the caller still hears it
}

void LongCall::finish() {
  if (progress_) exchange(true, false);  // tells only: an answer to stop now would have nowhere to go
}

}  // namespace nmt
