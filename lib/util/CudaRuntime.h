#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <string>

namespace nmt {

// "runtime: LibTorch 1.13.0, CUDA build no, CUDA devices 0": what the programs' --version
// adds, and what scripts read to know whether to test the CUDA side.
std::string runtimeDescription();

// Peak MiB (rounded up) LibTorch's caching allocator has held for tensors on `device` since the
// program started; -1 for the CPU or a LibTorch built without CUDA.
int64_t peakGpuMemoryMiB(const c10::Device& device);

}  // namespace nmt
