#pragma once

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include <string>

namespace nmt {

// The arithmetic of the matrix work: fp32 everywhere, or bf16/fp16 under autocast (matrix
// products and RNN cells in 16 bits; softmax, losses, norms and the weights stay fp32).
enum class Precision { kFp32, kBf16, kFp16 };

// What a program runs a model for: the precisions a device takes differ.
enum class ModelUse { kTraining, kTranslation };

// "fp32" | "bf16" | "fp16"; throws InputError naming the option otherwise ("auto" is settlePrecision's).
Precision parsePrecision(const std::string& text);
// A precision name or "auto", checked before there is a device to settle it on; throws as parsePrecision.
void checkPrecisionName(const std::string& text);
std::string precisionName(Precision precision);

// The precision `text` asks for, `auto` settled: bf16 to train on a CPU that multiplies bf16 in
// hardware (there it trains about twice as fast as fp32: docs/training.md), fp32 otherwise. Checked
// as checkPrecisionDevice checks it.
Precision settlePrecision(const std::string& text, const c10::Device& device, ModelUse use);

// fp32 runs anywhere, bf16 and fp16 on CUDA, and bf16 for training on a CPU with bf16 instructions
// (cpuBf16Instructions); OptionError naming the option otherwise.
void checkPrecisionDevice(Precision precision, const c10::Device& device, ModelUse use);

// The instructions this CPU multiplies bf16 with ("AVX-512 BF16", "AMX"); empty where it has none, or
// where oneDNN's ISA limit (ONEDNN_MAX_CPU_ISA) keeps it off them (its bf16 primitives then fail).
std::string cpuBf16Instructions();
// Whether the matrix work runs in bf16 on the CPU, through oneDNN (on LibTorch's intra-op threads).
bool cpuBf16(Precision precision, const c10::Device& device);

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
