#include "model/BahdanauAttention.h"

namespace nmt {

BahdanauAttentionImpl::BahdanauAttentionImpl(int64_t querySize, int64_t keySize, int64_t attentionSize) {
  queryProjection_ = register_module("W", torch::nn::Linear(torch::nn::LinearOptions(querySize, attentionSize).bias(false)));
  keyProjection_ = register_module("U", torch::nn::Linear(torch::nn::LinearOptions(keySize, attentionSize)));
  energy_ = register_module("v", torch::nn::Linear(torch::nn::LinearOptions(attentionSize, 1).bias(false)));
}

torch::Tensor BahdanauAttentionImpl::projectKeys(const torch::Tensor& keys) { return keyProjection_(keys); }

std::tuple<torch::Tensor, torch::Tensor> BahdanauAttentionImpl::forward(const torch::Tensor& query,
                                                                        const torch::Tensor& projectedKeys,
                                                                        const torch::Tensor& values,
                                                                        const torch::Tensor& mask) {
  const auto energies = energy_(torch::tanh(queryProjection_(query).unsqueeze(1) + projectedKeys)).squeeze(2);
  const auto weights = torch::softmax(energies.masked_fill(mask.logical_not(), -std::numeric_limits<float>::infinity()), 1);
  const auto context = torch::bmm(weights.unsqueeze(1), values).squeeze(1);
  return {context, weights};
}

}  // namespace nmt
