#pragma once

#include <torch/nn/modules/dropout.h>

namespace nmt {

// Dropout for training: x times a mask of 0 and 1 / (1 - p). On the CPU, for float32 and bfloat16, the mask
// is drawn by a counter-based generator (splitmix64 over the element's index) from one number of LibTorch's
// CPU generator, so --seed and a resumed checkpoint still decide it: LibTorch 1.13's own CPU dropout draws
// each element through a locked mt19937 (about 10 ns an element, a quarter of a full-Transformer step in fp32).
// Elsewhere (a GPU, other types) LibTorch's dropout.
at::Tensor trainingDropout(const at::Tensor& x, double p);

// x through `dropout` while it trains (trainingDropout), x itself otherwise: in eval a module call still
// dispatches LibTorch's dropout operator (microseconds each, a dozen times a decoding step) to return x.
inline torch::Tensor drop(torch::nn::Dropout& dropout, const torch::Tensor& x) {
  return dropout->is_training() ? trainingDropout(x, dropout->options.p()) : x;
}

}  // namespace nmt
