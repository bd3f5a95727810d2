#include "util/CudaRuntime.h"

#include "util/TorchCompat.h"

#include <torch/cuda.h>

#if NMT_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace nmt {

std::string runtimeDescription() {
  return "runtime: LibTorch " + compat::torchVersion() + ", CUDA build " + (NMT_WITH_CUDA ? "yes" : "no") +
         ", CUDA devices " + std::to_string(torch::cuda::device_count());
}

int64_t peakGpuMemoryMiB(const c10::Device& device) {
#if NMT_WITH_CUDA
  if (device.is_cuda()) {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index() < 0 ? 0 : device.index());
    const int64_t bytes = stats.allocated_bytes[0].peak;  // [0]: all pools together
    return (bytes + (1 << 20) - 1) >> 20;
  }
#endif
  (void)device;
  return -1;
}

}  // namespace nmt
