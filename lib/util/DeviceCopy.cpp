#include "util/DeviceCopy.h"

#include <ATen/ATen.h>

namespace nmt {

at::Tensor toDeviceWithoutWait(const at::Tensor& host, const c10::Device& device) {
  if (device.is_cpu()) return host;
  if (!device.is_cuda()) return host.to(device);
  return host.pin_memory().to(device, /*non_blocking=*/true);
}

at::Tensor onDevice(const std::vector<int64_t>& values, const c10::Device& device) {
  return toDeviceWithoutWait(at::tensor(values, at::kLong), device);
}

at::Tensor onDevice(const std::vector<double>& values, const c10::Device& device) {
  return toDeviceWithoutWait(at::tensor(values, at::kDouble), device);
}

}  // namespace nmt
