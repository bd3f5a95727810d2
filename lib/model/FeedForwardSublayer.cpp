#include "model/FeedForwardSublayer.h"

#include "model/TrainingDropout.h"

namespace nmt {

FeedForwardSublayer::FeedForwardSublayer(torch::nn::Module& layer, int64_t dim, int64_t inner) {
  norm_ = layer.register_module("feed_forward_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})));
  in_ = Dense(layer, "feed_forward_in", torch::nn::LinearOptions(dim, inner));
  out_ = Dense(layer, "feed_forward_out", torch::nn::LinearOptions(inner, dim));
}

torch::Tensor FeedForwardSublayer::operator()(const torch::Tensor& x, torch::nn::Dropout& dropout) {
  return x + drop(dropout, out_(drop(dropout, in_.relu(x, norm_))));
}

void FeedForwardSublayer::quantize() {
  in_.quantize();
  out_.quantize();
}

}  // namespace nmt
