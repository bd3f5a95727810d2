#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <vector>

namespace nmt {

// A host tensor on `device` without making the host wait for the copy: to a GPU from pinned memory,
// asynchronously (LibTorch keeps the pinned block until the copy has run, and the device runs the copy
// before the work queued after it); on the CPU the tensor itself. A copy from unpinned memory would make
// the host wait for the device to finish its queue first, at every decoder step that moves rows.
at::Tensor toDeviceWithoutWait(const at::Tensor& host, const c10::Device& device);

// Host values as an int64 or float64 tensor on `device`, the same way.
at::Tensor onDevice(const std::vector<int64_t>& values, const c10::Device& device);
at::Tensor onDevice(const std::vector<double>& values, const c10::Device& device);

}  // namespace nmt
