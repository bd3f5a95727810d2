#pragma once

#include "model/Dense.h"
#include "kernels/Int8Linear.h"

#include <torch/torch.h>

#include <memory>

#include <utility>

namespace nmt {

// Multi-head scaled dot-product attention, written out so that per-head weights can be read:
// per-head projections of Q, K, V, softmax(Q K^T / sqrt(d_k)) V with padded keys masked,
// heads concatenated, then W_O. The projected keys and values can be made once and attended to
// many times (a decoder's cross-attention over the encoder, its self-attention cache).
class MultiHeadAttentionImpl : public torch::nn::Module {
 public:
  MultiHeadAttentionImpl(int64_t dim, int64_t heads, double dropout = 0.0);

  // query [B, Sq, d], key/value [B, Sk, d], keyMask [B, Sk] bool (true = real token; undefined:
  // all real). causal: query i sees only keys up to its own position, the queries being the last
  // Sq of the Sk positions. -> (output [B, Sq, d], weights [B, H, Sq, Sk])
  std::tuple<torch::Tensor, torch::Tensor> forward(const torch::Tensor& query, const torch::Tensor& key,
                                                   const torch::Tensor& value, const torch::Tensor& keyMask,
                                                   bool causal = false);

  // key/value [B, Sk, d] -> W_K key, W_V value split into heads: [B, H, Sk, dk] each.
  std::pair<torch::Tensor, torch::Tensor> projectKeysValues(const torch::Tensor& key, const torch::Tensor& value);
  // Self-attention's three projections of norm(x) for x [B, S, d]: W_Q, W_K and W_V of it split into heads,
  // [B, H, S, dk] each; with int8 weights in one product (one quantization of the rows, normalized as
  // they are quantized; one product three times as wide).
  struct Projected {
    torch::Tensor queries, keys, values;
  };
  Projected projectSelf(const torch::Tensor& x, torch::nn::LayerNorm& norm);
  // W_Q norm(x) split into heads, [B, H, S, dk] (with int8 weights normalized as quantized), for attendProjected.
  torch::Tensor projectQuery(const torch::Tensor& x, torch::nn::LayerNorm& norm);
  // forward() over keys and values that projectKeysValues made. keyRows [B] int64: the row of
  // keys/values/keyMask each query row reads (several queries share one: a beam search's beams);
  // undefined: its own.
  std::tuple<torch::Tensor, torch::Tensor> attend(const torch::Tensor& query, const torch::Tensor& keys,
                                                  const torch::Tensor& values, const torch::Tensor& keyMask,
                                                  bool causal = false, const torch::Tensor& keyRows = {});
  // attend() for queries already projected and split into heads ([B, H, Sq, dk]: projectSelf's).
  // Training on a GPU, where LibTorch has them, runs its fused kernels (compat::fusedAttention), which
  // keep no weights: the weights returned are undefined there.
  std::tuple<torch::Tensor, torch::Tensor> attendProjected(const torch::Tensor& q, const torch::Tensor& keys,
                                                           const torch::Tensor& values, const torch::Tensor& keyMask,
                                                           bool causal = false, const torch::Tensor& keyRows = {});

  // From now on the four projections run in int8, their fp32 weights released (--int8: translation only);
  // a self-attention's Q, K and V also stacked into one product for projectSelf.
  void quantize(bool selfAttention);

  Dense queryProjection, keyProjection, valueProjection, outputProjection;  // W_Q, W_K, W_V, W_O

 private:
  torch::Tensor splitHeads(const torch::Tensor& x) const;  // [B, S, d] -> [B, H, S, dk]
  bool usesFusedAttention(const torch::Tensor& q, const torch::Tensor& keyRows) const;

  int64_t dim_, heads_, headDim_;
  std::shared_ptr<const Int8Linear> int8QueryKeyValue_;  // quantized: W_Q, W_K and W_V stacked (projectSelf)
  torch::nn::Dropout dropout_{nullptr};
};
TORCH_MODULE(MultiHeadAttention);

}  // namespace nmt
