#include "util/HostWaitCounter.h"

#include "util/TorchCompat.h"

#if NMT_WITH_CUDA
#include <c10/cuda/CUDAFunctions.h>
#endif

#include <string>

namespace nmt {

struct HostWaitCounter::Counter final : compat::TextWarningHandler {
  int64_t waits = 0;
  bool take(const std::string& text) override {
    if (text.find(kWarning) == std::string::npos) return false;
    ++waits;
    return true;
  }
};

HostWaitCounter::HostWaitCounter() : counter_(std::make_unique<Counter>()) {
#if NMT_WITH_CUDA
  previousMode_ = static_cast<int>(c10::cuda::warning_state().get_sync_debug_mode());
  c10::cuda::warning_state().set_sync_debug_mode(c10::cuda::SyncDebugMode::L_WARN);
#endif
}

HostWaitCounter::~HostWaitCounter() {
#if NMT_WITH_CUDA
  c10::cuda::warning_state().set_sync_debug_mode(static_cast<c10::cuda::SyncDebugMode>(previousMode_));
#endif
}

int64_t HostWaitCounter::waits() const { return counter_->waits; }

}  // namespace nmt
