#pragma once

#include <torch/nn/modules/dropout.h>

namespace nmt {

// x through `dropout` while it trains, x itself otherwise: in eval a module call still dispatches
// LibTorch's dropout operator (microseconds each, a dozen times a decoding step) to return x.
inline torch::Tensor drop(torch::nn::Dropout& dropout, const torch::Tensor& x) {
  return dropout->is_training() ? dropout(x) : x;
}

}  // namespace nmt
