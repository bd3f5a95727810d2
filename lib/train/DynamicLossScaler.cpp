#include "train/DynamicLossScaler.h"

#include "util/InputError.h"

#include <fmt/core.h>

#include <algorithm>
#include <sstream>

namespace nmt {

DynamicLossScaler::DynamicLossScaler(bool enabled, double initialScale, int64_t growthInterval)
    : enabled_(enabled), scale_(enabled ? initialScale : 1.0), growthInterval_(growthInterval) {}

bool DynamicLossScaler::update(bool finite) {
  if (!enabled_) return finite;
  if (!finite) {
    scale_ = std::max(scale_ * 0.5, 1.0 / 65536.0);
    goodSteps_ = 0;
    ++skipped_;
    return false;
  }
  if (++goodSteps_ >= growthInterval_) {
    scale_ *= 2.0;
    goodSteps_ = 0;
  }
  return true;
}

std::string DynamicLossScaler::toText() const { return fmt::format("{:.17g} {} {}", scale_, goodSteps_, skipped_); }

void DynamicLossScaler::restore(const std::string& text) {
  if (!enabled_ || text.empty()) return;
  std::istringstream in(text);
  double scale = 0.0;
  int64_t good = 0, skipped = 0;
  if (!(in >> scale >> good >> skipped) || !(scale > 0.0)) throw InputError("loss scaler state is corrupt: '" + text + "'");
  scale_ = scale;
  goodSteps_ = good;
  skipped_ = skipped;
}

}  // namespace nmt
