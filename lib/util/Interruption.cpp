#include "util/Interruption.h"

#include <future>

namespace nmt {

Interruption::Interruption(std::function<bool()> asked, std::chrono::milliseconds every)
    : asked_(std::move(asked)), every_(every), caller_(std::this_thread::get_id()),
      lastAsked_(std::chrono::steady_clock::now()) {}

bool Interruption::ask() {
  if (stop_) return true;
  if (!asked_ || std::this_thread::get_id() != caller_) return false;
  const auto now = std::chrono::steady_clock::now();
  if (now - lastAsked_ < every_) return false;
  lastAsked_ = now;
  if (asked_()) stop_ = true;
  return stop_;
}

void Interruption::check() {
  if (ask()) throw Interrupted();
}

void Interruption::whileAsking(const std::function<void()>& work) {
  if (!asked_) return work();
  auto running = std::async(std::launch::async, work);
  while (running.wait_for(every_) != std::future_status::ready)
    if (!stop_ && asked_()) stop_ = true;  // the work's threads stop at their next check()
  running.get();  // what the work threw (Interrupted, once stopped) comes out here
  if (stop_) throw Interrupted();  // asked while the work was ending anyway: the caller still hears it
}

}  // namespace nmt
