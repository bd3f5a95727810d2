#pragma once

#include "model/Dense.h"

#include <torch/torch.h>

#include <memory>

namespace nmt {

// The position-wise feed-forward sublayer both Transformer layers end with, pre-norm:
// x + Dropout(W_out Dropout(relu(W_in LayerNorm(x)))). Its modules are registered on the layer that
// holds it, in the order and under the names checkpoints have always had (feed_forward_norm,
// feed_forward_in, feed_forward_out), so models saved before load as they are and a seed
// initializes the same weights.
class FeedForwardSublayer {
 public:
  FeedForwardSublayer() = default;
  FeedForwardSublayer(torch::nn::Module& layer, int64_t dim, int64_t inner);

  // x [..., dim]; dropout: the layer's
  torch::Tensor operator()(const torch::Tensor& x, torch::nn::Dropout& dropout);
  // Both products in int8 from now on (--int8), their fp32 weights released.
  void quantize();

 private:
  torch::nn::LayerNorm norm_{nullptr};
  Dense in_, out_;
};

}  // namespace nmt
