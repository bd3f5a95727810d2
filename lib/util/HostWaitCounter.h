#pragma once

#include <cstdint>
#include <memory>

namespace nmt {

// Counts, while it lives, the times the host waited for a CUDA device in LibTorch's synchronising
// operations (a copy to the host, .item(), a copy from unpinned memory, ...): LibTorch's sync debug
// mode set to warn, its warnings counted here instead of printed. Only the calling thread's waits
// are counted (from LibTorch 2.0; the process's before). A build without CUDA counts none. One at a time.
class HostWaitCounter {
 public:
  HostWaitCounter();
  ~HostWaitCounter();
  HostWaitCounter(const HostWaitCounter&) = delete;
  HostWaitCounter& operator=(const HostWaitCounter&) = delete;

  int64_t waits() const;
  // The text LibTorch warns with at each wait (c10::cuda::warn_or_error_on_sync).
  static constexpr const char* kWarning = "called a synchronizing CUDA operation";

 private:
  struct Counter;
  std::unique_ptr<Counter> counter_;
  int previousMode_ = 0;
};

}  // namespace nmt
