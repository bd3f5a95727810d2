#include "model/TransformerDecoder.h"

#include "model/InferenceLinear.h"
#include "model/TrainingDropout.h"
#include "tokenization/SpecialIds.h"

#include <cmath>

namespace nmt {
namespace {

// The memory's parts: the mask [B, S], then each layer's cross-attention keys and values [B, H, S, dk].
// The state's: each layer's self-attention keys and values [B, H, t, dk] (every position decoded so far).
constexpr std::size_t kMask = 0;
std::size_t crossKeys(std::size_t layer) { return 1 + 2 * layer; }
std::size_t selfKeys(std::size_t layer) { return 2 * layer; }

}  // namespace

TransformerDecoderLayerImpl::TransformerDecoderLayerImpl(int64_t dim, int64_t heads, int64_t feedForward, double dropout) {
  auto norm = [&](const char* name) { return register_module(name, torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim}))); };
  selfAttention_ = register_module("self_attention", MultiHeadAttention(dim, heads, dropout));
  crossAttention_ = register_module("cross_attention", MultiHeadAttention(dim, heads, dropout));
  selfAttentionNorm_ = norm("self_attention_norm");
  crossAttentionNorm_ = norm("cross_attention_norm");
  feedForwardNorm_ = norm("feed_forward_norm");
  feedForwardIn_ = register_module("feed_forward_in", torch::nn::Linear(dim, feedForward));
  feedForwardOut_ = register_module("feed_forward_out", torch::nn::Linear(feedForward, dim));
  dropout_ = register_module("dropout", torch::nn::Dropout(dropout));
}

std::pair<torch::Tensor, torch::Tensor> TransformerDecoderLayerImpl::projectMemory(const torch::Tensor& encoderOutputs) {
  return crossAttention_->projectKeysValues(encoderOutputs, encoderOutputs);
}

TransformerDecoderLayerOutput TransformerDecoderLayerImpl::forward(const torch::Tensor& x, const torch::Tensor& pastKeys,
                                                                   const torch::Tensor& pastValues,
                                                                   const torch::Tensor& crossKeys,
                                                                   const torch::Tensor& crossValues,
                                                                   const torch::Tensor& sourceMask) {
  TransformerDecoderLayerOutput out;
  const auto normed = selfAttentionNorm_(x);
  auto [keys, values] = selfAttention_->projectKeysValues(normed, normed);
  if (pastKeys.size(2) > 0) {
    keys = torch::cat({pastKeys, keys}, 2);
    values = torch::cat({pastValues, values}, 2);
  }
  // the target's padding needs no mask: padded positions come after every real one
  auto [attended, selfWeights] = selfAttention_->attend(normed, keys, values, {}, /*causal=*/true);
  auto y = x + drop(dropout_, attended);
  auto [context, crossWeights] = crossAttention_->attend(crossAttentionNorm_(y), crossKeys, crossValues, sourceMask);
  y = y + drop(dropout_, context);
  y = y + drop(dropout_, inferenceLinear(feedForwardOut_, int8FeedForwardOut_,
                                     drop(dropout_, torch::relu(inferenceLinear(feedForwardIn_, int8FeedForwardIn_, feedForwardNorm_(y))))));
  out.x = y;
  out.keys = keys;
  out.values = values;
  out.selfWeights = selfWeights;
  out.crossWeights = crossWeights;
  return out;
}

void TransformerDecoderLayerImpl::quantize() {
  selfAttention_->quantize();
  crossAttention_->quantize();
  int8FeedForwardIn_ = quantizeLayer(feedForwardIn_);
  int8FeedForwardOut_ = quantizeLayer(feedForwardOut_);
}

TransformerDecoderImpl::TransformerDecoderImpl(const ModelConfig& config, torch::nn::Embedding sharedEmbedding)
    : config_(config) {
  const int64_t d = config.embeddingSize;
  if (sharedEmbedding)
    embedding_ = sharedEmbedding;  // owned (and saved) by the encoder
  else
    embedding_ = register_module("embedding", torch::nn::Embedding(torch::nn::EmbeddingOptions(config.targetVocab, d)
                                                                       .padding_idx(SpecialIds::kPad)));
  positions_ = register_module("positions", PositionalEncoding(d));
  dropout_ = register_module("dropout", torch::nn::Dropout(config.dropout));
  layers_ = register_module("layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < config.decoderDepth(); ++i)
    layers_->push_back(TransformerDecoderLayer(d, config.heads, config.feedForwardSize, config.dropout));
  finalNorm_ = register_module("final_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
  if (!config.tieTargetEmbeddings) output_ = register_module("output", torch::nn::Linear(d, config.targetVocab));
}

DecoderMemory TransformerDecoderImpl::prepare(const EncoderOutput& encoded) {
  std::vector<DecoderMemory::Part> parts{{encoded.mask, 0, 1}};
  for (const auto& layer : *layers_) {
    auto [keys, values] = layer->as<TransformerDecoderLayer>()->projectMemory(encoded.outputs);
    // each head's positions side by side, as every step reads them (splitHeads leaves heads interleaved)
    parts.push_back({keys.contiguous(), 0, 2});
    parts.push_back({values.contiguous(), 0, 2});
  }
  return DecoderMemory(std::move(parts));
}

DecoderState TransformerDecoderImpl::initialState(const EncoderOutput& encoded) {
  return emptyState(encoded.outputs.size(0), encoded.outputs.options());
}

DecoderState TransformerDecoderImpl::emptyState(int64_t rows, const torch::TensorOptions& options) const {
  std::vector<DecoderState::Part> parts;
  const int64_t headDim = config_.embeddingSize / config_.heads;
  for (int64_t l = 0; l < 2 * config_.decoderDepth(); ++l)
    parts.push_back({torch::zeros({rows, config_.heads, 0, headDim}, options), 0});
  return DecoderState(std::move(parts));
}

std::tuple<torch::Tensor, DecoderState, torch::Tensor> TransformerDecoderImpl::run(const torch::Tensor& tokens,
                                                                                   const DecoderState& state,
                                                                                   const DecoderMemory& memory,
                                                                                   const OutputSlice* slice,
                                                                                   const Int8Linear* int8) {
  const int64_t offset = state[selfKeys(0)].size(2);  // positions decoded so far
  auto x = drop(dropout_, positions_(embedding_(tokens) * std::sqrt(static_cast<double>(config_.embeddingSize)), offset));
  std::vector<DecoderState::Part> next;
  torch::Tensor lastCross;
  selfAttention_.clear();
  crossAttention_.clear();
  for (std::size_t l = 0; l < layers_->size(); ++l) {
    auto out = layers_[l]->as<TransformerDecoderLayer>()->forward(
        x, state[selfKeys(l)], state[selfKeys(l) + 1], memory[crossKeys(l)], memory[crossKeys(l) + 1], memory[kMask]);
    x = out.x;
    next.push_back({out.keys, 0});
    next.push_back({out.values, 0});
    lastCross = out.crossWeights;
    if (keep_) {
      selfAttention_.push_back(out.selfWeights.detach());
      crossAttention_.push_back(out.crossWeights.detach());
    }
  }
  const auto hidden = drop(dropout_, finalNorm_(x));
  const auto logits = int8      ? (*int8)(hidden)
                      : slice   ? inferenceLinear(hidden, slice->weight, slice->bias)
                      : output_ ? inferenceLinear(output_, hidden)
                                : inferenceLinear(hidden, embedding_->weight, torch::Tensor());
  return {torch::log_softmax(logits, -1), DecoderState(std::move(next)), lastCross.mean(1)};
}

OutputSlice TransformerDecoderImpl::sliceOutput(const std::vector<int>& ids) const {
  return sliceRows(ids, output_ ? output_->weight : embedding_->weight, output_ ? output_->bias : torch::Tensor(),
                   int8Output_.get());
}

void TransformerDecoderImpl::quantize() {
  if (int8EveryLayer())
    for (const auto& layer : *layers_) layer->as<TransformerDecoderLayer>()->quantize();
  // tied: the embeddings stay, steps read them
  int8Output_ = output_ ? replaceWithInt8(output_->weight, output_->bias)
                        : std::make_shared<Int8Linear>(embedding_->weight, torch::Tensor());
}

DecoderStep TransformerDecoderImpl::step(const torch::Tensor& previousTokens, const DecoderState& state,
                                         const DecoderMemory& memory, const OutputSlice* slice) {
  auto [logProbs, next, attention] =
      run(previousTokens.unsqueeze(1), state, memory, slice, (slice ? slice->int8 : int8Output_).get());
  return {logProbs.squeeze(1), next, attention.squeeze(1)};
}

DecoderOutput TransformerDecoderImpl::forward(const torch::Tensor& targetInput, const EncoderOutput& encoded,
                                              double teacherForcingRatio) {
  TORCH_CHECK(teacherForcingRatio >= 1.0, "the Transformer decoder trains with teacher forcing only");
  auto [logProbs, state, attention] =
      run(targetInput, initialState(encoded), prepare(encoded), nullptr, int8Output_.get());
  return {logProbs, attention, targetInput};
}

}  // namespace nmt
