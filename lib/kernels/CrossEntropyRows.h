#pragma once

#include <cstdint>

namespace nmt {

// Training's label-smoothed cross-entropy one row of output-layer scores at a time, straight from the
// scores: one pass to find the row's largest, one for its log-sum-exp and its sum, and in backward one
// pass that writes the gradient. log_softmax, its gather and mean, their backward and the conversions
// between them went over the [tokens, vocabulary] scores about eight times. A row is float32 or
// bfloat16 (its bits), read as floats; eight lanes at a time in the CPU's widest clone
// (kernels/VectorClones.h), every clone rounding alike.

struct RowLogSumExp {
  float logSumExp;  // log sum_j e^(x_j), taken about the row's largest; +-inf or NaN if the row has one
  float sum;        // sum_j x_j
};
RowLogSumExp rowLogSumExp(const float* row, int64_t n);
RowLogSumExp rowLogSumExp(const uint16_t* row, int64_t n);

// out_j = scale (e^(x_j - logSumExp) - uniform) and, at `gold`, less scale x goldWeight: the gradient of
// scale x [goldWeight (logSumExp - x_gold) + uniform sum_j (logSumExp - x_j)] (label smoothing with
// goldWeight = 1 - smoothing, uniform = smoothing / n). bfloat16 out rounds to the nearest even.
void smoothedCrossEntropyGradient(const float* row, int64_t n, float logSumExp, int64_t gold, float goldWeight,
                                  float uniform, float scale, float* out);
void smoothedCrossEntropyGradient(const uint16_t* row, int64_t n, float logSumExp, int64_t gold, float goldWeight,
                                  float uniform, float scale, uint16_t* out);

}  // namespace nmt
