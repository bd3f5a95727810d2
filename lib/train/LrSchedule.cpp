#include "train/LrSchedule.h"

#include "util/InputError.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace nmt {

LrSchedule::LrSchedule(LrScheduleOptions options) : options_(std::move(options)) {
  if (options_.kind != "plateau" && options_.kind != "inverse-sqrt" && options_.kind != "linear")
    throw OptionError("`lr-schedule` must be plateau, inverse-sqrt or linear, not '" + options_.kind + "'");
  if (!(options_.lr > 0.0 && std::isfinite(options_.lr))) throw OptionError("`lr` must be a positive number");
  if (!(options_.minLr >= 0.0 && std::isfinite(options_.minLr))) throw OptionError("`min-lr` must be a number of 0 or more");
  if (options_.warmupSteps < 0) throw OptionError("`warmup-steps` must not be negative");
  if (options_.kind == "inverse-sqrt" && options_.warmupSteps == 0)
    throw OptionError("`lr-schedule` inverse-sqrt needs `warmup-steps` above 0");
  if (!(options_.decay > 0.0 && options_.decay <= 1.0)) throw OptionError("`lr-decay` must be in (0, 1]");
  if (options_.patience < 1) throw OptionError("`lr-patience` must be at least 1");
  if (!(options_.hold >= 0.0 && options_.hold < 1.0)) throw OptionError("`lr-hold` must be in [0, 1)");
  if (options_.hold > 0.0 && options_.kind != "linear") throw OptionError("`lr-hold` needs `lr-schedule` linear");
}

double LrSchedule::rate(int64_t step, double runDone) const {
  const double s = static_cast<double>(std::max<int64_t>(step, 1));
  const double w = static_cast<double>(options_.warmupSteps);
  if (options_.kind == "inverse-sqrt") return options_.lr * std::min(s / w, std::sqrt(w / s));
  const double warm = options_.warmupSteps > 0 ? std::min(1.0, s / w) : 1.0;
  const double floor = std::min(options_.minLr, options_.lr);
  if (options_.kind == "linear") {
    const double decayed = std::clamp((runDone - options_.hold) / (1.0 - options_.hold), 0.0, 1.0);
    return std::max(options_.lr * (1.0 - decayed), floor) * warm;
  }
  return std::max(options_.lr * scale_, floor) * warm;
}

bool LrSchedule::onValidation(double bleu) {
  if (bleu > best_) {
    best_ = bleu;
    stale_ = 0;
    return false;
  }
  if (options_.kind != "plateau" || ++stale_ < options_.patience) return false;
  stale_ = 0;
  if (options_.lr * scale_ <= options_.minLr) return false;
  scale_ *= options_.decay;
  return true;
}

std::string LrSchedule::stateText() const {
  std::ostringstream out;
  out.precision(17);
  out << scale_ << ' ' << best_ << ' ' << stale_;
  return out.str();
}

void LrSchedule::restoreState(const std::string& text) {
  std::istringstream in(text);
  if (!(in >> scale_ >> best_ >> stale_)) throw InputError("learning-rate schedule state is corrupt: '" + text + "'");
}

}  // namespace nmt
