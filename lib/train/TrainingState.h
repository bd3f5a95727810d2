#pragma once

#include <cstdint>
#include <string>

namespace nmt {

// Where a training run is, beyond its weights and optimizer: enough to continue exactly.
struct TrainingState {
  int64_t step = 0;              // optimizer steps taken
  int64_t epoch = 0;             // epoch in progress (0-based)
  int64_t batchInEpoch = 0;      // batches of that epoch already trained
  double elapsedSeconds = 0.0;   // training time over all sessions
  std::string lrSchedule;        // LrSchedule::stateText()
  double bestBleu = -1.0;        // best validation BLEU so far (-1: none yet)
  int64_t bestStep = 0;          // the step that reached it
  int64_t staleValidations = 0;  // scheduled validations since the best one (early stopping)
  double windowLoss = 0.0;       // train loss summed since the last metrics row...
  int64_t windowTokens = 0;      // ...over this many target tokens...
  int64_t windowBatchTokens = 0; // ...and source + target tokens (no padding)...
  double windowSeconds = 0.0;    // ...in this much step time
  std::string lossScaler;        // DynamicLossScaler::toText() (fp16 runs; optional in older checkpoints)

  // Training speed over the window: source + target tokens per second of step time (NaN: no steps).
  double windowTokensPerSecond() const;

  std::string toText() const;
  // Throws InputError on a malformed text.
  static TrainingState fromText(const std::string& text);
};

}  // namespace nmt
