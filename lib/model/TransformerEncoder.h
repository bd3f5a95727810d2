#pragma once

#include "model/Encoder.h"
#include "model/EncoderOutput.h"
#include "model/FeedForwardSublayer.h"
#include "model/ModelConfig.h"
#include "model/MultiHeadAttention.h"
#include "model/PositionalEncoding.h"

#include <torch/torch.h>

#include <vector>

namespace nmt {

// One pre-norm layer: x + Dropout(SelfAttention(LayerNorm(x))), then x + Dropout(FFN(LayerNorm(x))).
// Pre-norm trains without warm-up tricks where post-norm stalls.
class TransformerEncoderLayerImpl : public torch::nn::Module {
 public:
  TransformerEncoderLayerImpl(int64_t dim, int64_t heads, int64_t feedForward, double dropout);
  // x [B, S, d], mask [B, S] -> (x, self-attention weights [B, H, S, S])
  std::tuple<torch::Tensor, torch::Tensor> forward(const torch::Tensor& x, const torch::Tensor& mask);
  // Every linear layer in int8 from now on (--int8).
  void quantize();

 private:
  MultiHeadAttention selfAttention_{nullptr};
  torch::nn::LayerNorm attentionNorm_{nullptr};
  FeedForwardSublayer feedForward_;
  torch::nn::Dropout dropout_{nullptr};
};
TORCH_MODULE(TransformerEncoderLayer);

// Embedding * sqrt(d) + sinusoidal positions, N self-attention layers, a final LayerNorm. An RNN
// decoder's initial state comes from the masked mean of the outputs through a linear + tanh bridge.
class TransformerEncoderImpl : public torch::nn::Module, public Encoder {
 public:
  // withBridge: also make the initial state of an RNN decoder (EncoderOutput::initialState).
  TransformerEncoderImpl(const ModelConfig& config, bool withBridge);

  // lengths is unused (masks carry the padding) but kept so both encoders share one signature.
  EncoderOutput forward(const torch::Tensor& source, const torch::Tensor& lengths, const torch::Tensor& mask);
  EncoderOutput encode(const at::Tensor& source, const at::Tensor& lengths, const at::Tensor& mask) override {
    return forward(source, lengths, mask);
  }
  int64_t outputSize() const override { return config_.embeddingSize; }
  bool scalesEmbeddings() const override { return true; }
  // The layers' linear products in int8 from now on (the RNN decoder's bridge stays fp32).
  void quantize() override;
  // Each layer's per-head self-attention [B, H, S, S] from the last forward when keepAttention is on.
  bool hasSelfAttentionHeads() const override { return true; }
  void keepAttention(bool keep) override { keep_ = keep; }
  const std::vector<at::Tensor>& selfAttentionHeads() const override { return selfAttention_; }

  torch::nn::Embedding& embedding() { return embedding_; }

 private:
  ModelConfig config_;
  torch::nn::Embedding embedding_{nullptr};
  PositionalEncoding positions_{nullptr};
  torch::nn::Dropout dropout_{nullptr};
  torch::nn::ModuleList layers_{nullptr};
  torch::nn::LayerNorm finalNorm_{nullptr};
  torch::nn::Linear bridgeH_{nullptr}, bridgeC_{nullptr};
  bool keep_ = false;
  std::vector<torch::Tensor> selfAttention_;
};
TORCH_MODULE(TransformerEncoder);

}  // namespace nmt
