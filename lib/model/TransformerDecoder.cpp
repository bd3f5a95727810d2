#include "model/TransformerDecoder.h"

#include "model/Layers.h"
#include "model/TrainingDropout.h"
#include "tokenization/SpecialIds.h"

#include <cmath>

namespace nmt {
namespace {

// The memory's parts: the mask [B, S], then each layer's cross-attention keys and values [B, H, S, dk].
// The state's: each layer's self-attention keys and values [B, H, t, dk] (every position decoded so far),
// then which of those t positions are a row's own [B, t] (rows that joined a running batch later are
// padded in front of their first), then each row's next position [B].
constexpr std::size_t kMask = 0;
std::size_t crossKeys(std::size_t layer) { return 1 + 2 * layer; }
std::size_t selfKeys(std::size_t layer) { return 2 * layer; }
std::size_t selfMask(std::size_t layers) { return 2 * layers; }
std::size_t nextPositions(std::size_t layers) { return 2 * layers + 1; }

// How many positions fit after cache's last one in the buffer it is a view of: its rows and heads
// are spaced for `capacity` positions and the buffer is this cache's alone to grow into.
int64_t roomAfter(const torch::Tensor& cache) {
  const int64_t B = cache.size(0), H = cache.size(1), t = cache.size(2), dk = cache.size(3);
  if (B == 0 || cache.stride(3) != 1 || cache.stride(2) != dk || cache.stride(1) % dk != 0 ||
      cache.stride(0) != H * cache.stride(1))
    return 0;
  const int64_t capacity = cache.stride(1) / dk;
  const auto available = static_cast<int64_t>(cache.storage().nbytes() / cache.element_size()) - cache.storage_offset();
  // the last row's last head must reach capacity positions too
  return available >= B * cache.stride(0) ? capacity - t : 0;
}

// The cache with `fresh` [B, H, T, dk] after its positions. A decoding step writes them into the room
// the buffer has (no copy of the t positions before, which a concatenation makes at every step);
// without room, a buffer with room for 16 more takes both (beam search, whose reordering copies
// every step, pays for no more room than that).
torch::Tensor appended(const torch::Tensor& cache, const torch::Tensor& fresh) {
  const int64_t B = cache.size(0), H = cache.size(1), t = cache.size(2), T = fresh.size(2), dk = cache.size(3);
  if (roomAfter(cache) >= T) {
    auto grown = cache.as_strided({B, H, t + T, dk}, cache.strides(), cache.storage_offset());
    grown.narrow(2, t, T).copy_(fresh);
    return grown;
  }
  const int64_t capacity = t + T + 16;
  auto buffer = at::empty({B, H, capacity, dk}, cache.options());
  buffer.narrow(2, 0, t).copy_(cache);
  buffer.narrow(2, t, T).copy_(fresh);
  return buffer.narrow(2, 0, t + T);
}

// The fixed-length cache [B, H, W, dk] with fresh [B, H, 1, dk] written in place at column columns[b] of row b.
torch::Tensor writtenAt(const torch::Tensor& cache, const torch::Tensor& fresh, const torch::Tensor& columns) {
  return cache.scatter_(2, columns.view({-1, 1, 1, 1}).expand(fresh.sizes()), fresh.to(cache.scalar_type()));
}

}  // namespace

TransformerDecoderLayerImpl::TransformerDecoderLayerImpl(int64_t dim, int64_t heads, int64_t feedForward, double dropout) {
  auto norm = [&](const char* name) { return register_module(name, torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim}))); };
  selfAttention_ = register_module("self_attention", MultiHeadAttention(dim, heads, dropout));
  crossAttention_ = register_module("cross_attention", MultiHeadAttention(dim, heads, dropout));
  selfAttentionNorm_ = norm("self_attention_norm");
  crossAttentionNorm_ = norm("cross_attention_norm");
  feedForward_ = FeedForwardSublayer(*this, dim, feedForward);
  dropout_ = register_module("dropout", torch::nn::Dropout(dropout));
}

std::pair<torch::Tensor, torch::Tensor> TransformerDecoderLayerImpl::projectMemory(const torch::Tensor& encoderOutputs) {
  return crossAttention_->projectKeysValues(encoderOutputs, encoderOutputs);
}

TransformerDecoderLayerOutput TransformerDecoderLayerImpl::forward(const torch::Tensor& x, const torch::Tensor& pastKeys,
                                                                   const torch::Tensor& pastValues,
                                                                   const torch::Tensor& crossKeys,
                                                                   const torch::Tensor& crossValues,
                                                                   const torch::Tensor& sourceMask,
                                                                   const torch::Tensor& crossRows,
                                                                   const torch::Tensor& selfMask,
                                                                   const torch::Tensor& writeColumns) {
  TransformerDecoderLayerOutput out;
  auto [queries, keys, values] = selfAttention_->projectSelf(x, selfAttentionNorm_);
  if (writeColumns.defined()) {
    keys = writtenAt(pastKeys, keys, writeColumns);
    values = writtenAt(pastValues, values, writeColumns);
  } else if (!is_training() && !keys.requires_grad()) {  // decoding: the caches grow in place (Decoder::step)
    keys = appended(pastKeys, keys);
    values = appended(pastValues, values);
  } else if (pastKeys.size(2) > 0) {
    keys = torch::cat({pastKeys, keys}, 2);
    values = torch::cat({pastValues, values}, 2);
  }
  // a target's padding needs no mask (padded positions come after every real one); the padding of rows
  // that joined a running batch later does (selfMask)
  auto [attended, selfWeights] = selfAttention_->attendProjected(queries, keys, values, selfMask, /*causal=*/true);
  auto y = x + drop(dropout_, attended);
  auto [context, crossWeights] = crossAttention_->attendProjected(crossAttention_->projectQuery(y, crossAttentionNorm_),
                                                                      crossKeys, crossValues, sourceMask,
                                                                      /*causal=*/false, crossRows);
  out.x = feedForward_(y + drop(dropout_, context), dropout_);
  out.keys = keys;
  out.values = values;
  out.selfWeights = selfWeights;
  out.crossWeights = crossWeights;
  return out;
}

void TransformerDecoderLayerImpl::quantize() {
  selfAttention_->quantize(/*selfAttention=*/true);
  crossAttention_->quantize(/*selfAttention=*/false);
  feedForward_.quantize();
}

TransformerDecoderImpl::TransformerDecoderImpl(const ModelConfig& config, torch::nn::Embedding sharedEmbedding)
    : config_(config) {
  const int64_t d = config.embeddingSize;
  if (sharedEmbedding)
    embedding_ = sharedEmbedding;  // owned (and saved) by the encoder
  else
    embedding_ = register_module("embedding", embeddingLayer(torch::nn::EmbeddingOptions(config.targetVocab, d)
                                                                       .padding_idx(SpecialIds::kPad)));
  positions_ = register_module("positions", PositionalEncoding(d));
  dropout_ = register_module("dropout", torch::nn::Dropout(config.dropout));
  layers_ = register_module("layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < config.decoderDepth(); ++i)
    layers_->push_back(TransformerDecoderLayer(d, config.heads, config.decoderFeedForward(), config.dropout));
  finalNorm_ = register_module("final_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
  output_ = config.tieTargetEmbeddings ? OutputLayer(embedding_) : OutputLayer(*this, "output", d, config.targetVocab);
}

DecoderMemory TransformerDecoderImpl::prepare(const EncoderOutput& encoded) {
  std::vector<DecoderMemory::Part> parts{{encoded.mask, 0, 1}};
  for (const auto& layer : *layers_) {
    auto [keys, values] = layer->as<TransformerDecoderLayer>()->projectMemory(encoded.outputs);
    // each head's positions side by side, as every step reads them (splitHeads leaves heads interleaved)
    parts.push_back({cacheOf(keys), 0, 2});
    parts.push_back({cacheOf(values), 0, 2});
  }
  return DecoderMemory(std::move(parts));
}

torch::Tensor TransformerDecoderImpl::cacheOf(const torch::Tensor& projected) const {
  if (!bfloat16Caches_) return projected.contiguous();
  return torch::empty(projected.sizes(), projected.options().dtype(torch::kBFloat16)).copy_(projected);
}

DecoderState TransformerDecoderImpl::initialState(const EncoderOutput& encoded) {
  return emptyState(encoded.outputs.size(0), encoded.outputs.options());
}

DecoderState TransformerDecoderImpl::emptyState(int64_t rows, const torch::TensorOptions& options) const {
  std::vector<DecoderState::Part> parts;
  const int64_t headDim = config_.embeddingSize / config_.heads;
  // the time axes are padded (with positions masked out) when rows of different ages stack
  const auto cacheOptions = bfloat16Caches_ ? options.dtype(torch::kBFloat16) : options;
  for (int64_t l = 0; l < 2 * config_.decoderDepth(); ++l)
    parts.push_back({torch::zeros({rows, config_.heads, 0, headDim}, cacheOptions), 0, 2});
  parts.push_back({torch::zeros({rows, 0}, options.dtype(torch::kBool)), 0, 1});
  parts.push_back({torch::zeros({rows}, options.dtype(torch::kInt64)), 0});
  return DecoderState(std::move(parts));
}

std::tuple<torch::Tensor, DecoderState, torch::Tensor> TransformerDecoderImpl::run(const torch::Tensor& tokens,
                                                                                   const DecoderState& state,
                                                                                   const DecoderMemory& memory,
                                                                                   const OutputSlice* slice,
                                                                                   const torch::Tensor& memoryRows) {
  const std::size_t L = layers_->size();
  const int64_t B = tokens.size(0), T = tokens.size(1), cached = state[selfKeys(0)].size(2);
  const auto embedded = embedding_(tokens) * std::sqrt(static_cast<double>(config_.embeddingSize));
  // A step: each row at its own position, its padding masked. A whole target (training, forced
  // decoding) starts from the empty state: every row at 0, nothing to mask.
  const bool step = T == 1;
  // A fixed-length state keeps a row's position p in column p: it sees columns 0..p. A row past the
  // last column (one that ended and runs on unread, a free slot) writes over the last.
  const bool fixedLength = step && state.fixedShape();
  auto positions = state[nextPositions(L)];
  torch::Tensor ownPositions;
  if (fixedLength) {
    positions = positions.clamp_max(cached - 1);
    ownPositions = torch::arange(cached, positions.options()).unsqueeze(0) <= positions.unsqueeze(1);
  } else {
    ownPositions = at::cat({state[selfMask(L)], torch::ones({B, T}, tokens.options().dtype(torch::kBool))}, 1);
  }
  auto x = drop(dropout_, step ? positions_->atPositions(embedded, positions, fixedLength ? cached - 1 : cached)
                               : positions_(embedded, cached));
  std::vector<DecoderState::Part> next;
  torch::Tensor lastCross;
  selfAttention_.clear();
  crossAttention_.clear();
  for (std::size_t l = 0; l < layers_->size(); ++l) {
    auto out = layers_[l]->as<TransformerDecoderLayer>()->forward(
        x, state[selfKeys(l)], state[selfKeys(l) + 1], memory[crossKeys(l)], memory[crossKeys(l) + 1], memory[kMask],
        memoryRows, step ? ownPositions : torch::Tensor(), fixedLength ? positions : torch::Tensor());
    x = out.x;
    next.push_back({out.keys, 0, 2});
    next.push_back({out.values, 0, 2});
    lastCross = out.crossWeights;
    if (keep_ && out.selfWeights.defined()) {  // none where fused attention ran (training on a GPU)
      selfAttention_.push_back(out.selfWeights.detach());
      crossAttention_.push_back(out.crossWeights.detach());
    }
  }
  const auto logits = output_(x, finalNorm_, dropout_, slice);
  next.push_back({ownPositions, 0, 1});
  next.push_back({state[nextPositions(L)] + T, 0});
  return {logits, DecoderState(std::move(next), fixedLength), lastCross.defined() ? lastCross.mean(1) : torch::Tensor()};
}

DecoderState TransformerDecoderImpl::withFixedLength(const DecoderState& state, int64_t length) const {
  const std::size_t L = layers_->size();
  TORCH_CHECK(length > 0, "a fixed-length state needs room for a position");
  TORCH_CHECK(state.fixedShape() || state[selfMask(L)].size(1) == 0,
              "only an initial or fixed-length state takes a fixed length");
  // the caches' and the mask's time axes: zeros, masked; cut only past every row's last position
  return state.withSourceLength(length).markedFixedShape();
}

DecoderState TransformerDecoderImpl::withoutFirstPositions(const DecoderState& state, int64_t count) const {
  TORCH_CHECK(!state.fixedShape(), "a fixed-length state keeps its positions");
  return state.withoutFirstSourcePositions(count);  // the caches' and the mask's time axes
}

OutputSlice TransformerDecoderImpl::sliceOutput(const std::vector<int>& ids) const {
  return output_.slice(ids);
}

void TransformerDecoderImpl::quantize() {
  if (int8EveryLayer()) {
    for (const auto& layer : *layers_) layer->as<TransformerDecoderLayer>()->quantize();
    bfloat16Caches_ = true;
  }
  output_.quantize();
}

DecoderStep TransformerDecoderImpl::step(const torch::Tensor& previousTokens, const DecoderState& state,
                                         const DecoderMemory& memory, const OutputSlice* slice,
                                         const torch::Tensor& memoryRows) {
  auto [logits, next, attention] =
      run(previousTokens.unsqueeze(1), state, memory, slice, memoryRows);
  return {logits.squeeze(1), next, attention.squeeze(1)};
}

DecoderOutput TransformerDecoderImpl::forward(const torch::Tensor& targetInput, const EncoderOutput& encoded,
                                              double teacherForcingRatio) {
  TORCH_CHECK(teacherForcingRatio >= 1.0, "the Transformer decoder trains with teacher forcing only");
  auto [logits, state, attention] =
      run(targetInput, initialState(encoded), prepare(encoded), nullptr, torch::Tensor());
  return {logits, attention, targetInput};
}

}  // namespace nmt
