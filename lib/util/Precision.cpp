#include "util/Precision.h"

#include "util/BlasKernels.h"
#include "util/InputError.h"
#include "util/TorchCompat.h"

namespace nmt {

Precision parsePrecision(const std::string& text) {
  if (text == "fp32") return Precision::kFp32;
  if (text == "bf16") return Precision::kBf16;
  if (text == "fp16") return Precision::kFp16;
  throw OptionError("`precision` must be fp32, bf16, fp16 or auto, not '" + text + "'");
}

void checkPrecisionName(const std::string& text) {
  if (text != "auto") parsePrecision(text);
}

std::string precisionName(Precision precision) {
  switch (precision) {
    case Precision::kBf16: return "bf16";
    case Precision::kFp16: return "fp16";
    default: return "fp32";
  }
}

std::string cpuBf16Instructions() {
  const CpuFeatures features = detectCpuFeatures();
  const char* limit = oneDnnIsaLimit().second;
  if (features.amxbf16 && oneDnnIsaAllows(limit, "AVX512_CORE_AMX")) return "AMX";
  if ((features.avx512bf16 || features.amxbf16) && oneDnnIsaAllows(limit, "AVX512_CORE_BF16")) return "AVX-512 BF16";
  return "";
}

bool cpuBf16(Precision precision, const c10::Device& device) {
  return precision == Precision::kBf16 && device.is_cpu();
}

Precision settlePrecision(const std::string& text, const c10::Device& device, ModelUse use) {
  if (text == "auto")
    return use == ModelUse::kTraining && device.is_cpu() && !cpuBf16Instructions().empty() ? Precision::kBf16
                                                                                          : Precision::kFp32;
  const Precision precision = parsePrecision(text);
  checkPrecisionDevice(precision, device, use);
  return precision;
}

void checkPrecisionDevice(Precision precision, const c10::Device& device, ModelUse use) {
  if (precision == Precision::kFp32 || device.is_cuda()) return;
  if (precision == Precision::kBf16 && use == ModelUse::kTraining) {
    if (!cpuBf16Instructions().empty()) return;
    const auto [variable, limit] = oneDnnIsaLimit();
    const CpuFeatures features = detectCpuFeatures();
    const std::string why = features.avx512bf16 || features.amxbf16
                                ? variable + "=" + limit + " keeps oneDNN off them"
                                : "this " + cpuModelName() + " has neither";
    throw OptionError("`precision` bf16 needs a CUDA device or a CPU with AVX-512 BF16 or AMX instructions (" + why +
                      "; `precision` auto trains in fp32 here)");
  }
  throw OptionError("`precision` " + precisionName(precision) + " needs a CUDA device" +
                    (precision == Precision::kBf16 ? std::string(" to translate (on the CPU bf16 is for training)")
                                                   : std::string(" (on " + device.str() + " the model runs in fp32)")));
}

AutocastScope::AutocastScope(const c10::Device& device, Precision precision)
    : active_(precision != Precision::kFp32), type_(device.type()) {
  if (!active_) return;
  wasEnabled_ = compat::autocastEnabled(type_);
  previousDtype_ = compat::autocastDtype(type_);
  compat::setAutocast(type_, true, precision == Precision::kBf16 ? c10::kBFloat16 : c10::kHalf);
  at::autocast::increment_nesting();
}

AutocastScope::~AutocastScope() {
  if (!active_) return;
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  compat::setAutocast(type_, wasEnabled_, previousDtype_);
}

}  // namespace nmt
