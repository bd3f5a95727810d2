#pragma once

#include "model/Dense.h"

#include <torch/torch.h>

#include <memory>

namespace nmt {

// Additive attention: score(q, k_j) = v^T tanh(W q + U k_j), softmax over the source with
// padded positions masked out (their weights are exactly 0). U k depends only on the encoder
// outputs, so projectKeys runs once per batch and every decoder step reuses it.
class BahdanauAttentionImpl : public torch::nn::Module {
 public:
  BahdanauAttentionImpl(int64_t querySize, int64_t keySize, int64_t attentionSize);

  torch::Tensor projectKeys(const torch::Tensor& keys);  // [B, S, K] -> [B, S, A]
  // From now on W q and U k run in int8, their fp32 weights released (--int8: translation only).
  void quantize();

  // query [B, Q], projectedKeys [B, S, A], values [B, S, K], mask [B, S] bool
  // -> (context [B, K], weights [B, S])
  std::tuple<torch::Tensor, torch::Tensor> forward(const torch::Tensor& query, const torch::Tensor& projectedKeys,
                                                   const torch::Tensor& values, const torch::Tensor& mask);

 private:
  Dense queryProjection_;                 // W
  Dense keyProjection_;                   // U
  torch::nn::Linear energy_{nullptr};     // v (read as a vector, never a product of its own)
};
TORCH_MODULE(BahdanauAttention);

}  // namespace nmt
