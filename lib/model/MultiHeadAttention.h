#pragma once

#include <torch/torch.h>

namespace nmt {

// Multi-head scaled dot-product attention, written out so that per-head weights can be read:
// per-head projections of Q, K, V, softmax(Q K^T / sqrt(d_k)) V with padded keys masked,
// heads concatenated, then W_O.
class MultiHeadAttentionImpl : public torch::nn::Module {
 public:
  MultiHeadAttentionImpl(int64_t dim, int64_t heads, double dropout = 0.0);

  // query [B, Sq, d], key/value [B, Sk, d], keyMask [B, Sk] bool (true = real token)
  // -> (output [B, Sq, d], weights [B, H, Sq, Sk])
  std::tuple<torch::Tensor, torch::Tensor> forward(const torch::Tensor& query, const torch::Tensor& key,
                                                   const torch::Tensor& value, const torch::Tensor& keyMask);

  torch::nn::Linear queryProjection{nullptr}, keyProjection{nullptr}, valueProjection{nullptr}, outputProjection{nullptr};

 private:
  int64_t dim_, heads_, headDim_;
  torch::nn::Dropout dropout_{nullptr};
};
TORCH_MODULE(MultiHeadAttention);

}  // namespace nmt
