#include "util/Precision.h"

#include "util/InputError.h"
#include "util/TorchCompat.h"

namespace nmt {

Precision parsePrecision(const std::string& text) {
  if (text == "fp32") return Precision::kFp32;
  if (text == "bf16") return Precision::kBf16;
  if (text == "fp16") return Precision::kFp16;
  throw OptionError("`precision` must be fp32, bf16 or fp16, not '" + text + "'");
}

std::string precisionName(Precision precision) {
  switch (precision) {
    case Precision::kBf16: return "bf16";
    case Precision::kFp16: return "fp16";
    default: return "fp32";
  }
}

void checkPrecisionDevice(Precision precision, const c10::Device& device) {
  if (precision != Precision::kFp32 && !device.is_cuda())
    throw OptionError("`precision` " + precisionName(precision) + " needs a CUDA device (on " + device.str() +
                     " the model runs in fp32)");
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
