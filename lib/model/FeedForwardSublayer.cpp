#include "model/FeedForwardSublayer.h"

#include "model/InferenceLinear.h"
#include "model/Layers.h"
#include "model/TrainingDropout.h"

namespace nmt {

FeedForwardSublayer::FeedForwardSublayer(torch::nn::Module& layer, int64_t dim, int64_t inner) {
  norm_ = layer.register_module("feed_forward_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})));
  in_ = layer.register_module("feed_forward_in", linearLayer(torch::nn::LinearOptions(dim, inner)));
  out_ = layer.register_module("feed_forward_out", linearLayer(torch::nn::LinearOptions(inner, dim)));
}

torch::Tensor FeedForwardSublayer::operator()(const torch::Tensor& x, torch::nn::Dropout& dropout) {
  const auto inner = int8In_ ? int8In_->relu(x, inputNorm(norm_)) : inferenceLinearRelu(norm_(x), in_->weight, in_->bias);
  return x + drop(dropout, inferenceLinear(out_, int8Out_, drop(dropout, inner)));
}

void FeedForwardSublayer::quantize() {
  int8In_ = quantizeLayer(in_);
  int8Out_ = quantizeLayer(out_);
}

}  // namespace nmt
