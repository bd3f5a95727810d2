#pragma once

#include <cstdint>
#include <string>

namespace nmt {

struct LrScheduleOptions {
  // "plateau": decay when validation BLEU stalls; "inverse-sqrt"; "linear": after warm-up, straight down to
  // minLr at the end of the run's budget (the steepest fixed-budget schedule in Li et al. 2020, "Budgeted training")
  std::string kind = "plateau";
  double lr = 1e-3;              // peak learning rate (after warm-up)
  int64_t warmupSteps = 0;       // linear warm-up from lr/warmupSteps to lr
  double decay = 0.5;            // plateau: multiply by this...
  int64_t patience = 2;          // ...after this many validations without a new best BLEU
  double minLr = 1e-5;           // plateau and linear: never below this
  double hold = 0.0;             // linear: the peak kept for this share of the budget, the line after it
};

// The learning rate as a function of the step and of validation results. Its state is the
// plateau's (current scale, best BLEU, validations since), saved in checkpoints.
class LrSchedule {
 public:
  explicit LrSchedule(LrScheduleOptions options);

  // The rate for optimizer step `step` (1-based), `runDone` of the run's budget used (0 to 1: linear's clock).
  double rate(int64_t step, double runDone) const;
  // Feeds a validation result; returns true when the rate was just decayed.
  bool onValidation(double bleu);

  std::string stateText() const;  // "scale best stale"
  void restoreState(const std::string& text);

 private:
  LrScheduleOptions options_;
  double scale_ = 1.0;
  double best_ = -1.0;
  int64_t stale_ = 0;
};

}  // namespace nmt
