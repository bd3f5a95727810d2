#pragma once

#include <ATen/core/Tensor.h>

namespace nmt {

struct LossTerms {
  at::Tensor loss;      // scalar: label-smoothed cross-entropy summed over real tokens (to optimize)
  at::Tensor nll;       // scalar: plain negative log-likelihood summed over real tokens (to report)
  int64_t tokens = 0;   // real (non-padding) gold tokens
};

// Cross-entropy of softmax(logits) against (1 - smoothing) on the gold token plus smoothing spread
// evenly over the vocabulary; positions where gold is `ignoreIndex` (padding) count for nothing.
// logits [B, T, V] (log-probabilities serve as well: their softmax is themselves), gold [B, T].
// `knownTokens` >= 0 is the count of real gold tokens when the caller knows it already (counting them
// on a GPU waits for it); -1 counts them. On the CPU, float32 and bfloat16 logits go through one fused
// pass forward and one backward (kernels/CrossEntropyRows.h), in float32 whatever their type; `nll`
// carries no gradient there.
LossTerms labelSmoothedLoss(const at::Tensor& logits, const at::Tensor& gold, double smoothing, int64_t ignoreIndex,
                            int64_t knownTokens = -1);

}  // namespace nmt
