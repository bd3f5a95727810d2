#pragma once

#include <cstdint>
#include <string>

namespace nmt {

// Dynamic loss scaling for fp16 training (as PyTorch's GradScaler): the loss is multiplied by
// scale() before backward so that small gradients survive in fp16; gradients are divided by it
// again before clipping. A step whose gradients overflow is skipped and the scale halved;
// after `growthInterval` good steps in a row it doubles. Disabled (fp32 and bf16, whose range is
// fp32's), the scale stays 1 and update() only passes on whether the step was finite.
class DynamicLossScaler {
 public:
  explicit DynamicLossScaler(bool enabled, double initialScale = 65536.0, int64_t growthInterval = 2000);

  bool enabled() const { return enabled_; }
  double scale() const { return scale_; }
  // Reports whether this step's gradients were finite; returns whether to apply the step.
  bool update(bool finite);
  int64_t skippedSteps() const { return skipped_; }

  // "scale goodSteps skipped" for the training checkpoint; restore throws InputError on a bad text.
  std::string toText() const;
  void restore(const std::string& text);

 private:
  bool enabled_;
  double scale_;
  int64_t growthInterval_;
  int64_t goodSteps_ = 0;
  int64_t skipped_ = 0;
};

}  // namespace nmt
