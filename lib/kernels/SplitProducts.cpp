#include "kernels/SplitProducts.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include <unistd.h>

namespace nmt {
namespace {

thread_local bool splitting = false;

// One helper thread that runs the second halves. It spins a while after each task, since a decoding
// step's next product follows within microseconds, then sleeps until the next.
class Helper {
 public:
  // Never destroyed (the programs end without static destructors); made anew in a forked child, which has
  // the parent's helper object but not its thread.
  static Helper& instance() {
    static std::mutex made;
    static Helper* helper = nullptr;
    static pid_t owner = 0;
    const std::lock_guard<std::mutex> lock(made);
    if (!helper || owner != ::getpid()) {
      helper = new Helper();
      owner = ::getpid();
    }
    return *helper;
  }

  void run(const std::function<void()>& first, const std::function<void()>& second) {
    const std::lock_guard<std::mutex> oneCaller(callerMutex_);  // one caller at a time
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      task_ = &second;
      error_ = nullptr;
      state_.store(kPosted, std::memory_order_release);
    }
    wake_.notify_one();
    std::exception_ptr firstError;
    try {
      first();
    } catch (...) {
      firstError = std::current_exception();
    }
    while (state_.load(std::memory_order_acquire) != kDone) std::this_thread::yield();  // about as long as the first
    state_.store(kIdle, std::memory_order_relaxed);
    if (firstError) std::rethrow_exception(firstError);
    if (error_) std::rethrow_exception(error_);
  }

 private:
  enum : int { kIdle, kPosted, kDone };

  Helper() : thread_([this] { loop(); }) { thread_.detach(); }

  void loop() {
    for (;;) {
      const auto spinUntil = std::chrono::steady_clock::now() + std::chrono::microseconds(500);
      while (state_.load(std::memory_order_acquire) != kPosted && std::chrono::steady_clock::now() < spinUntil)
        std::this_thread::yield();
      if (state_.load(std::memory_order_acquire) != kPosted) {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return state_.load(std::memory_order_acquire) == kPosted; });
      }
      try {
        (*task_)();
      } catch (...) {
        error_ = std::current_exception();
      }
      state_.store(kDone, std::memory_order_release);
    }
  }

  std::mutex callerMutex_, mutex_;
  std::condition_variable wake_;
  std::atomic<int> state_{kIdle};
  const std::function<void()>* task_ = nullptr;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace

SplitProducts::SplitProducts() : saved_(splitting) { splitting = true; }
SplitProducts::~SplitProducts() { splitting = saved_; }

bool splittingProducts() { return splitting; }

void runInTwo(const std::function<void()>& first, const std::function<void()>& second) {
  Helper::instance().run(first, second);
}

}  // namespace nmt
