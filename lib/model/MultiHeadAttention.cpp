#include "model/MultiHeadAttention.h"

#include <cmath>

namespace nmt {

MultiHeadAttentionImpl::MultiHeadAttentionImpl(int64_t dim, int64_t heads, double dropout)
    : dim_(dim), heads_(heads), headDim_(dim / heads) {
  TORCH_CHECK(dim % heads == 0, "model dimension ", dim, " is not divisible by ", heads, " heads");
  queryProjection = register_module("W_Q", torch::nn::Linear(dim, dim));
  keyProjection = register_module("W_K", torch::nn::Linear(dim, dim));
  valueProjection = register_module("W_V", torch::nn::Linear(dim, dim));
  outputProjection = register_module("W_O", torch::nn::Linear(dim, dim));
  dropout_ = register_module("dropout", torch::nn::Dropout(dropout));
}

std::tuple<torch::Tensor, torch::Tensor> MultiHeadAttentionImpl::forward(const torch::Tensor& query,
                                                                         const torch::Tensor& key,
                                                                         const torch::Tensor& value,
                                                                         const torch::Tensor& keyMask) {
  const int64_t B = query.size(0), Sq = query.size(1), Sk = key.size(1);
  auto split = [&](const torch::Tensor& x, int64_t S) { return x.view({B, S, heads_, headDim_}).transpose(1, 2); };
  const auto q = split(queryProjection(query), Sq);  // [B, H, Sq, dk]
  const auto k = split(keyProjection(key), Sk);
  const auto v = split(valueProjection(value), Sk);
  auto scores = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(headDim_));  // [B, H, Sq, Sk]
  scores = scores.masked_fill(keyMask.logical_not().view({B, 1, 1, Sk}), -std::numeric_limits<float>::infinity());
  const auto weights = torch::softmax(scores, -1);
  const auto heads = torch::matmul(dropout_(weights), v);  // [B, H, Sq, dk]
  const auto joined = heads.transpose(1, 2).reshape({B, Sq, dim_});
  return {outputProjection(joined), weights};
}

}  // namespace nmt
