#pragma once

#include "model/BahdanauAttention.h"
#include "model/Dense.h"
#include "model/Decoder.h"
#include "model/ModelConfig.h"
#include "model/OutputLayer.h"

#include <torch/torch.h>

namespace nmt {

// Bahdanau attention decoder: the cell (GRU or LSTM) reads [embedding; context], with the
// previous top-layer hidden state as the attention query; the output layer reads
// [hidden; context; embedding].
class AttentionDecoderImpl : public torch::nn::Module, public Decoder {
 public:
  AttentionDecoderImpl(const ModelConfig& config, int64_t encoderOutputSize);

  // For step: the values attention averages are the encoder outputs multiplied by the context
  // columns of the first cell layer's input weights and of the output layer, [B, S, gates + output size].
  DecoderMemory prepare(const EncoderOutput& encoded) override;
  // The encoder's bridge state.
  DecoderState initialState(const EncoderOutput& encoded) override;

  // One step for decoding (no dropout: eval mode), previousTokens [B] int64, with prepare's
  // memory: forward's step to float rounding.
  DecoderStep step(const torch::Tensor& previousTokens, const DecoderState& state, const DecoderMemory& memory,
                   const OutputSlice* slice, const torch::Tensor& memoryRows) override;
  OutputSlice sliceOutput(const std::vector<int>& ids) const override;
  void quantize() override;

  // Training over a whole target: targetInput [B, T] starts with <s>. At each step after the
  // first, the gold previous token is fed with probability teacherForcingRatio (drawn once per
  // step from LibTorch's CPU generator), otherwise the model's own previous argmax.
  DecoderOutput forward(const torch::Tensor& targetInput, const EncoderOutput& encoded, double teacherForcingRatio = 1.0);
  DecoderOutput teacherForced(const at::Tensor& targetInput, const EncoderOutput& encoded, double teacherForcingRatio) override {
    return forward(targetInput, encoded, teacherForcingRatio);
  }

  bool scalesEmbeddings() const override { return false; }
  bool feedsOwnPredictions() const override { return true; }
  bool stateGrows() const override { return false; }  // its state is one vector per layer and row

  torch::nn::Embedding& embedding() { return embedding_; }

 private:
  // cell step without the output layer: (hidden [B, H], context [B, D], embedded [B, E], weights, new state)
  std::tuple<torch::Tensor, torch::Tensor, torch::Tensor, torch::Tensor, RecurrentState> advance(
      const torch::Tensor& tokens, const RecurrentState& state, const torch::Tensor& values, const torch::Tensor& keys,
      const torch::Tensor& mask);
  torch::Tensor logits(const torch::Tensor& hidden, const torch::Tensor& context, const torch::Tensor& embedded);
  torch::Tensor outputOf(const torch::Tensor& features, const OutputSlice* slice) const;  // [H; D; E] -> logits
  std::vector<torch::Tensor> rnnWeights() const;  // the cell's, 4 per layer (torch::nn::GRU/LSTM order)

  ModelConfig config_;
  int64_t encoderOutputSize_;
  torch::nn::Embedding embedding_{nullptr};
  torch::nn::Dropout dropout_{nullptr};
  BahdanauAttention attention_{nullptr};
  torch::nn::GRU gru_{nullptr};
  torch::nn::LSTM lstm_{nullptr};
  // [H; D; E] -> V: its own; or with tied embeddings [H; D; E] -> E (toEmbedding_), then the embeddings
  Dense toEmbedding_;
  OutputLayer output_;
  // when quantized, per cell layer: the input gates' product (the first layer's embedding columns)
  // and the hidden gates'; and the first layer's context columns, which prepare multiplies once a
  // batch (every source position: in fp32 a seventh of an RNN translation); the cell's fp32 weights
  // stay (LibTorch's GRU/LSTM read them)
  std::vector<std::shared_ptr<const Int8Linear>> int8InputGates_, int8HiddenGates_;
  std::shared_ptr<const Int8Linear> int8ContextGates_;
};
TORCH_MODULE(AttentionDecoder);

}  // namespace nmt
