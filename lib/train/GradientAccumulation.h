#pragma once

#include "data/Batch.h"
#include "model/Seq2Seq.h"
#include "util/Precision.h"

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <vector>

namespace nmt {

// What the loss of a training step needs beyond the batches.
struct LossSettings {
  double labelSmoothing = 0.1;
  double teacherForcing = 1.0;
  Precision precision = Precision::kFp32;  // bf16/fp16: the forward pass under autocast
  double lossScale = 1.0;                  // fp16: the loss is scaled for backward, the gradients unscaled after
};

struct AccumulatedLoss {
  at::Tensor lossSum;  // label-smoothed loss summed over all the gold tokens (detached; undefined: no batches)
  int64_t tokens = 0;  // gold tokens of all the batches
};

// Gold tokens of a batch: target tokens less the <s> that starts each row.
int64_t goldTokens(const Batch& batch);

// Drops the parameters' gradients (undefined counts as zero) rather than zeroing them: the first
// backward of a step then keeps the gradient tensors it computed, where zeroed ones cost a pass to
// zero and a pass to add over every parameter a step. A parameter the step's loss does not reach is
// then left out of the optimizer step, not stepped with a zero gradient (PyTorch 2's set_to_none):
// every parameter of nmt's models is reached by every batch.
void forgetGradients(const std::vector<at::Tensor>& parameters);

// Forward and backward of the batches one optimizer step takes (`accumulate` N: N batches, or this
// worker's shares of them), into the parameters' gradients, which must start at zero or undefined. Each batch's
// loss is divided by the gold tokens of all of them, so that the gradients are those of one batch
// holding all their rows (as fairseq's --update-freq and Marian's --optimizer-delay sum them).
AccumulatedLoss accumulateGradients(Seq2Seq& model, const std::vector<Batch>& batches, const LossSettings& settings,
                                    const c10::Device& device);

}  // namespace nmt
