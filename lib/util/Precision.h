#pragma once

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include <string>

namespace nmt {

// The arithmetic of the matrix work: fp32 everywhere, or bf16/fp16 under autocast (matrix
// products and RNN cells in 16 bits; softmax, losses, norms and the weights stay fp32).
enum class Precision { kFp32, kBf16, kFp16 };

// "fp32" | "bf16" | "fp16"; throws InputError naming the option otherwise.
Precision parsePrecision(const std::string& text);
std::string precisionName(Precision precision);

// 16-bit precisions are for CUDA; throws InputError for another device.
void checkPrecisionDevice(Precision precision, const c10::Device& device);

// Turns autocast on for `device`'s type in this thread for the scope's life (nothing for
// fp32), then restores what was there and drops autocast's cache of cast weights.
class AutocastScope {
 public:
  AutocastScope(const c10::Device& device, Precision precision);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool active_ = false;
  c10::DeviceType type_;
  bool wasEnabled_ = false;
  c10::ScalarType previousDtype_;
};

}  // namespace nmt
