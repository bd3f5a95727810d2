#pragma once

#include "kernels/Int8Linear.h"

#include <ATen/core/Tensor.h>

#include <memory>
#include <utility>
#include <vector>

namespace nmt {

// A GRU's translation with --int8 (the RNN encoder's): each layer and direction projects its
// input at every position in one int8 product, then steps through the positions with an int8
// product of the hidden state and the gates. LibTorch's GRU over a packed batch runs two fp32
// products a position, each packing its weights again: most of an --int8 RNN translation's time
// once the decoder ran in int8.
class Int8Gru {
 public:
  // weights: per layer and direction (forward, then backward), LibTorch's GRU parameters in its
  // order: weight_ih [3H, in], weight_hh [3H, H], bias_ih [3H], bias_hh [3H] (gates r, z, n).
  Int8Gru(const std::vector<std::vector<at::Tensor>>& weights, int64_t layers, bool bidirectional);

  // input [B, S, in] (batch first), lengths [B] int64 on the CPU -> outputs [B, S, dirs * H] (zeros
  // after each row's length) and the last hidden state of each layer and direction [layers * dirs,
  // B, H]: what LibTorch's GRU gives over the packed rows.
  std::pair<at::Tensor, at::Tensor> operator()(const at::Tensor& input, const at::Tensor& lengths) const;

 private:
  struct Direction {
    std::shared_ptr<const Int8Linear> input, hidden;
  };
  std::vector<Direction> directions_;  // layer by layer, forward then backward
  int64_t layers_, dirs_, hidden_;
};

}  // namespace nmt
