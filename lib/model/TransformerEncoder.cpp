#include "model/TransformerEncoder.h"

#include "kernels/InferenceLinear.h"
#include "model/Layers.h"
#include "model/TrainingDropout.h"
#include "tokenization/SpecialIds.h"

#include <cmath>

namespace nmt {

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(int64_t dim, int64_t heads, int64_t feedForward, double dropout) {
  selfAttention_ = register_module("self_attention", MultiHeadAttention(dim, heads, dropout));
  attentionNorm_ = register_module("attention_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})));
  feedForward_ = FeedForwardSublayer(*this, dim, feedForward);
  dropout_ = register_module("dropout", torch::nn::Dropout(dropout));
}

std::tuple<torch::Tensor, torch::Tensor> TransformerEncoderLayerImpl::forward(const torch::Tensor& x,
                                                                              const torch::Tensor& mask) {
  auto [queries, keys, values] = selfAttention_->projectSelf(x, attentionNorm_);
  auto [attended, weights] = selfAttention_->attendProjected(queries, keys, values, mask);
  return {feedForward_(x + drop(dropout_, attended), dropout_), weights};
}

void TransformerEncoderLayerImpl::quantize() {
  selfAttention_->quantize(/*selfAttention=*/true);
  feedForward_.quantize();
}

void TransformerEncoderImpl::quantize() {
  if (!int8EveryLayer()) return;
  for (const auto& layer : *layers_) layer->as<TransformerEncoderLayer>()->quantize();
}

TransformerEncoderImpl::TransformerEncoderImpl(const ModelConfig& config, bool withBridge) : config_(config) {
  const int64_t d = config.embeddingSize;
  embedding_ = register_module(
      "embedding", embeddingLayer(torch::nn::EmbeddingOptions(config.sourceVocab, d).padding_idx(SpecialIds::kPad)));
  positions_ = register_module("positions", PositionalEncoding(d));
  dropout_ = register_module("dropout", torch::nn::Dropout(config.dropout));
  layers_ = register_module("layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < config.layers; ++i)
    layers_->push_back(TransformerEncoderLayer(d, config.heads, config.feedForwardSize, config.dropout));
  finalNorm_ = register_module("final_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
  if (withBridge) {
    const int64_t decoderStates = config.decoderDepth() * config.hiddenSize;
    bridgeH_ = register_module("bridge_h", linearLayer(torch::nn::LinearOptions(d, decoderStates)));
    if (config.lstmCell()) bridgeC_ = register_module("bridge_c", linearLayer(torch::nn::LinearOptions(d, decoderStates)));
  }
}

EncoderOutput TransformerEncoderImpl::forward(const torch::Tensor& source, const torch::Tensor& /*lengths*/,
                                              const torch::Tensor& mask) {
  auto x = drop(dropout_, positions_(embedding_(source) * std::sqrt(static_cast<double>(config_.embeddingSize))));
  selfAttention_.clear();
  for (const auto& layer : *layers_) {
    auto [y, weights] = layer->as<TransformerEncoderLayer>()->forward(x, mask);
    x = y;
    if (keep_ && weights.defined()) selfAttention_.push_back(weights.detach());  // none where fused (training on a GPU)
  }
  const auto maskF = mask.unsqueeze(-1).to(x.dtype());
  const auto outputs = finalNorm_(x) * maskF;  // zero at padded positions
  if (!bridgeH_) return {outputs, mask, {}};
  const auto mean = outputs.sum(1) / maskF.sum(1).clamp_min(1.0);  // [B, d]
  const int64_t B = source.size(0);
  auto layered = [&](torch::nn::Linear& bridge) {
    return torch::tanh(bridge(mean)).view({B, config_.decoderDepth(), config_.hiddenSize}).transpose(0, 1).contiguous();
  };
  RecurrentState state;
  state.h = layered(bridgeH_);
  if (bridgeC_) state.c = layered(bridgeC_);
  return {outputs, mask, state};
}

}  // namespace nmt
