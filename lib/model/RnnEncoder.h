#pragma once

#include "model/Encoder.h"
#include "model/EncoderOutput.h"
#include "kernels/Int8Gru.h"
#include "model/ModelConfig.h"

#include <torch/torch.h>

namespace nmt {

// Embedding -> dropout -> (bi)GRU/LSTM over packed sequences, so padding never enters the
// recurrence. The bridge (linear + tanh over each layer's final forward and backward states)
// gives the decoder's initial state.
class RnnEncoderImpl : public torch::nn::Module, public Encoder {
 public:
  explicit RnnEncoderImpl(const ModelConfig& config);

  // source [B, S] int64, lengths [B] int64 on the CPU, mask [B, S] bool.
  EncoderOutput forward(const torch::Tensor& source, const torch::Tensor& lengths, const torch::Tensor& mask);

  EncoderOutput encode(const at::Tensor& source, const at::Tensor& lengths, const at::Tensor& mask) override {
    return forward(source, lengths, mask);
  }
  int64_t outputSize() const override { return outputSize_; }
  bool scalesEmbeddings() const override { return false; }
  // A GRU's products in int8 from now on where every layer goes int8 (Int8Gru, int8EveryLayer;
  // translation only), its fp32 matrices freed. An LSTM stays LibTorch's.
  void quantize() override;

 private:
  RecurrentState bridge(const torch::Tensor& h, const torch::Tensor& c);

  ModelConfig config_;
  int64_t outputSize_;
  torch::nn::Embedding embedding_{nullptr};
  torch::nn::Dropout dropout_{nullptr};
  torch::nn::GRU gru_{nullptr};
  std::shared_ptr<const Int8Gru> int8Gru_;  // when quantized
  torch::nn::LSTM lstm_{nullptr};
  torch::nn::Linear bridgeH_{nullptr};
  torch::nn::Linear bridgeC_{nullptr};
};
TORCH_MODULE(RnnEncoder);

}  // namespace nmt
