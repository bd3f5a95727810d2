#pragma once

#include "model/Decoder.h"
#include "model/Dense.h"
#include "model/FeedForwardSublayer.h"
#include "model/ModelConfig.h"
#include "model/MultiHeadAttention.h"
#include "model/OutputLayer.h"
#include "model/PositionalEncoding.h"

#include <torch/torch.h>

#include <vector>

namespace nmt {

// What one decoder layer returns for its positions.
struct TransformerDecoderLayerOutput {
  torch::Tensor x;             // [B, T, d]
  torch::Tensor keys, values;  // the self-attention cache including these positions: [B, H, t + T, dk]
  torch::Tensor selfWeights;   // [B, H, T, t + T]
  torch::Tensor crossWeights;  // [B, H, T, S]
};

// One pre-norm layer: masked self-attention over the target prefix, cross-attention over the
// encoder's outputs, feed-forward; each x + Dropout(sublayer(LayerNorm(x))), as in the encoder.
class TransformerDecoderLayerImpl : public torch::nn::Module {
 public:
  TransformerDecoderLayerImpl(int64_t dim, int64_t heads, int64_t feedForward, double dropout);

  // The cross-attention's keys and values over the encoder outputs [B, S, d]: once per batch.
  std::pair<torch::Tensor, torch::Tensor> projectMemory(const torch::Tensor& encoderOutputs);
  // x [B, T, d]: the positions after the t cached ones (pastKeys/pastValues [B, H, t, dk], t may be 0).
  // Training passes the whole target with an empty cache; decoding one position at a time.
  // selfMask [B, t + T] bool: the cache positions that are each row's own (undefined: all).
  // crossRows [B]: the row of crossKeys/crossValues/sourceMask each row reads (undefined: its own).
  // writeColumns [B] (a step of a fixed-length cache): the column of the cache each row's position is
  // written to, in place; undefined: appended after the t cached ones.
  TransformerDecoderLayerOutput forward(const torch::Tensor& x, const torch::Tensor& pastKeys,
                                        const torch::Tensor& pastValues, const torch::Tensor& crossKeys,
                                        const torch::Tensor& crossValues, const torch::Tensor& sourceMask,
                                        const torch::Tensor& crossRows, const torch::Tensor& selfMask,
                                        const torch::Tensor& writeColumns = {});
  // Every linear layer in int8 from now on (--int8).
  void quantize();

 private:
  MultiHeadAttention selfAttention_{nullptr}, crossAttention_{nullptr};
  torch::nn::LayerNorm selfAttentionNorm_{nullptr}, crossAttentionNorm_{nullptr};
  FeedForwardSublayer feedForward_;
  torch::nn::Dropout dropout_{nullptr};
};
TORCH_MODULE(TransformerDecoderLayer);

// The Transformer decoder: embedding * sqrt(d) + sinusoidal positions, N decoder layers, a final
// LayerNorm, the output layer (or the target embeddings, tied). Decoding keeps each layer's
// self-attention keys and values in the DecoderState, so a step costs one position.
class TransformerDecoderImpl : public torch::nn::Module, public Decoder {
 public:
  // sharedEmbedding: the encoder's embedding to read target tokens with (a joint vocabulary);
  // null: the decoder has its own.
  TransformerDecoderImpl(const ModelConfig& config, torch::nn::Embedding sharedEmbedding = nullptr);

  // Each layer's cross-attention keys and values over the encoder outputs.
  DecoderMemory prepare(const EncoderOutput& encoded) override;
  // The state before the first step: empty self-attention caches.
  DecoderState initialState(const EncoderOutput& encoded) override;
  // One step for decoding: previousTokens [B] int64 at the position the state has reached.
  DecoderStep step(const torch::Tensor& previousTokens, const DecoderState& state, const DecoderMemory& memory,
                   const OutputSlice* slice, const torch::Tensor& memoryRows) override;
  // Each layer's caches padded to `length` positions, a row's position p kept in column p (masked
  // beyond it): steps write there in place and keep the shapes.
  DecoderState withFixedLength(const DecoderState& state, int64_t length) const override;
  DecoderState withoutFirstPositions(const DecoderState& state, int64_t count) const override;
  // on the CPU, the one-query attention reads a shared row of the memory for each row
  bool readsMemoryRowsInPlace(const c10::Device& device) const override { return device.is_cpu(); }
  OutputSlice sliceOutput(const std::vector<int>& ids) const override;
  void quantize() override;
  // Teacher-forced pass over targetInput [B, T] (starts with <s>), all positions at once.
  // Feeding the model's own predictions (teacherForcingRatio < 1) is not supported.
  DecoderOutput forward(const torch::Tensor& targetInput, const EncoderOutput& encoded, double teacherForcingRatio = 1.0);
  DecoderOutput teacherForced(const at::Tensor& targetInput, const EncoderOutput& encoded, double teacherForcingRatio) override {
    return forward(targetInput, encoded, teacherForcingRatio);
  }

  bool scalesEmbeddings() const override { return true; }
  bool feedsOwnPredictions() const override { return false; }  // it reads the whole gold prefix at once
  // its self-attention caches gain a position a step (rows of different ages stack: each row's cache
  // positions are masked and its position kept)
  bool stateGrows() const override { return true; }

  // Per-layer weights of the last forward or step when keepAttention is on:
  // self-attention [B, H, T, T] and cross-attention [B, H, T, S].
  bool hasAttentionHeads() const override { return true; }
  void keepAttention(bool keep) override { keep_ = keep; }
  const std::vector<at::Tensor>& selfAttentionHeads() const override { return selfAttention_; }
  const std::vector<at::Tensor>& crossAttentionHeads() const override { return crossAttention_; }

  torch::nn::Embedding& embedding() { return embedding_; }

 private:
  // positions [B, T] after the cached ones -> (logits [B, T, V], state, last layer's
  // cross-attention mean over heads [B, T, S])
  // slice: only its pieces; memoryRows: as step's
  std::tuple<torch::Tensor, DecoderState, torch::Tensor> run(const torch::Tensor& tokens, const DecoderState& state,
                                                             const DecoderMemory& memory, const OutputSlice* slice,
                                                             const torch::Tensor& memoryRows);

  DecoderState emptyState(int64_t rows, const torch::TensorOptions& options) const;
  // Projected memory keys or values [B, H, S, dk] as the steps keep them: contiguous, bfloat16 with int8 layers.
  torch::Tensor cacheOf(const torch::Tensor& projected) const;

  ModelConfig config_;
  torch::nn::Embedding embedding_{nullptr};
  PositionalEncoding positions_{nullptr};
  torch::nn::Dropout dropout_{nullptr};
  torch::nn::ModuleList layers_{nullptr};
  torch::nn::LayerNorm finalNorm_{nullptr};
  OutputLayer output_;  // d -> V: its own, or tied to the embeddings
  // With int8 layers, translation's keys and values (the memory's and the self-attention caches) are
  // kept in bfloat16: every step reads them all, and at a batch of 64 rows that reading from the
  // L3 cache was most of attention's time; half the bytes, rounded as the int8 products already are.
  bool bfloat16Caches_ = false;
  bool keep_ = false;
  std::vector<torch::Tensor> selfAttention_, crossAttention_;
};
TORCH_MODULE(TransformerDecoder);

}  // namespace nmt
