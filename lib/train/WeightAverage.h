#pragma once

#include "model/Seq2Seq.h"

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

namespace nmt {

// An exponential moving average of the model's weights (--ema-decay D, --ema-start S), kept beside
// them on their device. After optimizer step t > S it becomes
//   average = d * average + (1 - d) * weights,  d = min(D, (1 + n) / (10 + n)),  n = t - S - 1,
// so that its first steps are not dominated by the weights it started from (the warm-up of
// TensorFlow's ExponentialMovingAverage with num_updates, and of Marian's exponential smoothing); up
// to step S it is the weights themselves. Validation, best.pt and kept/ take the average (Averaged);
// checkpoints carry it (kAveragedWeightsPrefix), and resuming continues it exactly.
class WeightAverage {
 public:
  // decay 0: no average (every call below does nothing).
  WeightAverage(const Seq2Seq& model, double decay, int64_t start);

  bool enabled() const { return decay_ > 0.0; }
  // After the optimizer step that made `step` steps in all.
  void update(int64_t step);
  // The decay step `step` applies (0: the average is set to the weights).
  double decayAt(int64_t step) const;

  void write(torch::serialize::OutputArchive& archive) const;
  // The average a checkpoint holds; false when it has none (then the average starts from the weights).
  bool restore(torch::serialize::InputArchive& archive);

  // The model holds the average for this scope's life, its own weights again after.
  class Averaged {
   public:
    explicit Averaged(WeightAverage& average);
    ~Averaged();
    Averaged(const Averaged&) = delete;
    Averaged& operator=(const Averaged&) = delete;

   private:
    WeightAverage& average_;
    std::vector<torch::Tensor> trained_;
  };

 private:
  void startFromWeights();

  double decay_;
  int64_t start_;
  std::vector<std::string> names_;
  std::vector<torch::Tensor> parameters_;
  std::vector<torch::Tensor> average_;
};

}  // namespace nmt
