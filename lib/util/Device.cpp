#include "util/Device.h"

#include "util/InputError.h"

#include <torch/torch.h>

#include <regex>

namespace nmt {

int64_t cudaDeviceCount() { return torch::cuda::is_available() ? static_cast<int64_t>(torch::cuda::device_count()) : 0; }

c10::Device resolveDevice(const std::string& choice) {
  if (choice == "cpu") return c10::Device(c10::kCPU);
  const bool cuda = torch::cuda::is_available();
  if (choice == "auto") return cuda ? c10::Device(c10::kCUDA, 0) : c10::Device(c10::kCPU);
  static const std::regex pattern("cuda(:([0-9]+))?");
  std::smatch m;
  if (!std::regex_match(choice, m, pattern))
    throw InputError("invalid device '" + choice + "': expected auto, cpu, cuda or cuda:N");
  if (!cuda)
    throw OptionError("device '" + choice +
                      "' requested but CUDA is not available (this LibTorch build has no CUDA support or no GPU is "
                      "visible); use `device` cpu");
  const int index = m[2].matched ? std::stoi(m[2].str()) : 0;
  const int count = static_cast<int>(torch::cuda::device_count());
  if (index >= count)
    throw InputError("device '" + choice + "' requested but only " + std::to_string(count) + " CUDA device(s) exist");
  return c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(index));
}

}  // namespace nmt
