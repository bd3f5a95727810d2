#include "model/MultiHeadAttention.h"

#include "kernels/BatchedProduct.h"
#include "kernels/InferenceAttention.h"
#include "kernels/InferenceLinear.h"
#include "model/Layers.h"
#include "model/TrainingDropout.h"
#include "util/TorchCompat.h"

#include <cmath>
#include <limits>

namespace nmt {

MultiHeadAttentionImpl::MultiHeadAttentionImpl(int64_t dim, int64_t heads, double dropout)
    : dim_(dim), heads_(heads), headDim_(dim / heads) {
  TORCH_CHECK(dim % heads == 0, "model dimension ", dim, " is not divisible by ", heads, " heads");
  queryProjection = Dense(*this, "W_Q", torch::nn::LinearOptions(dim, dim));
  keyProjection = Dense(*this, "W_K", torch::nn::LinearOptions(dim, dim));
  valueProjection = Dense(*this, "W_V", torch::nn::LinearOptions(dim, dim));
  outputProjection = Dense(*this, "W_O", torch::nn::LinearOptions(dim, dim));
  dropout_ = register_module("dropout", torch::nn::Dropout(dropout));
}

torch::Tensor MultiHeadAttentionImpl::splitHeads(const torch::Tensor& x) const {
  return x.view({x.size(0), x.size(1), heads_, headDim_}).transpose(1, 2);
}

std::pair<torch::Tensor, torch::Tensor> MultiHeadAttentionImpl::projectKeysValues(const torch::Tensor& key,
                                                                                  const torch::Tensor& value) {
  return {splitHeads(keyProjection(key)), splitHeads(valueProjection(value))};
}

MultiHeadAttentionImpl::Projected MultiHeadAttentionImpl::projectSelf(const torch::Tensor& x, torch::nn::LayerNorm& norm) {
  if (!int8QueryKeyValue_) {
    const auto normed = norm(x);
    auto [keys, values] = projectKeysValues(normed, normed);
    return {splitHeads(queryProjection(normed)), keys, values};
  }
  const auto all = (*int8QueryKeyValue_)(x, inputNorm(norm));  // [B, S, 3d]: W_Q, W_K, W_V side by side
  return {splitHeads(all.narrow(-1, 0, dim_)), splitHeads(all.narrow(-1, dim_, dim_)),
          splitHeads(all.narrow(-1, 2 * dim_, dim_))};
}

torch::Tensor MultiHeadAttentionImpl::projectQuery(const torch::Tensor& x, torch::nn::LayerNorm& norm) {
  return splitHeads(queryProjection(x, norm));
}

std::tuple<torch::Tensor, torch::Tensor> MultiHeadAttentionImpl::attend(const torch::Tensor& query,
                                                                        const torch::Tensor& sharedKeys,
                                                                        const torch::Tensor& sharedValues,
                                                                        const torch::Tensor& sharedKeyMask, bool causal,
                                                                        const torch::Tensor& keyRows) {
  return attendProjected(splitHeads(queryProjection(query)), sharedKeys, sharedValues,
                         sharedKeyMask, causal, keyRows);
}

std::tuple<torch::Tensor, torch::Tensor> MultiHeadAttentionImpl::attendProjected(const torch::Tensor& q,
                                                                                 const torch::Tensor& sharedKeys,
                                                                                 const torch::Tensor& sharedValues,
                                                                                 const torch::Tensor& sharedKeyMask,
                                                                                 bool causal, const torch::Tensor& keyRows) {
  const int64_t B = q.size(0), Sq = q.size(2), Sk = sharedKeys.size(2);
  if (usesFusedAttention(q, keyRows)) {  // training on a GPU: LibTorch's fused kernels, no weights kept
    at::Tensor allowed = sharedKeyMask.defined() ? sharedKeyMask.view({B, 1, 1, Sk}) : at::Tensor();
    const bool future = causal && Sq > 1;
    if (future && (allowed.defined() || Sq != Sk)) {  // the queries are the last Sq positions
      const auto seen = torch::ones({Sq, Sk}, q.options().dtype(torch::kBool)).tril(Sk - Sq);
      allowed = allowed.defined() ? allowed.logical_and(seen) : seen;
    }
    const auto heads = compat::fusedAttention(q, sharedKeys, sharedValues, allowed, dropout_->options.p(),
                                              future && !allowed.defined());
    return {outputProjection(heads.transpose(1, 2).reshape({B, Sq, dim_})), torch::Tensor()};
  }
  // One query a row (a decoding step): each head's scores and context are dot products, one
  // element-wise kernel each; bmm would run a tiny matrix product (and its packing) per row and head.
  const bool oneQuery = Sq == 1 && !is_training();
  // int8 weights: their numbers already differ from float32's, so the softmax too may be this toolkit's
  const auto softmax = queryProjection.quantized() ? AttentionSoftmax::Fused : AttentionSoftmax::Torch;
  if (oneQuery && canAttendOneQuery(q, sharedKeys, sharedValues, keyRows)) {
    auto attended = attendOneQuery(q, sharedKeys, sharedValues, sharedKeyMask, keyRows, softmax);
    return {outputProjection(attended.context), attended.weights};
  }
  // A whole sequence attending to itself (the encoder's self-attention, inference): each position
  // becomes a one-query row reading its sentence's keys and values, which stay in cache for the
  // sentence's positions (no copies of strided Q, K, V for bmm, no masked_fill; with int8 weights no
  // softmax operator either). Its sums are added in another order than bmm's: float32 translations
  // of test_2016_flickr came out the same, their scores within the last digits.
  if (!oneQuery && !causal && Sq == Sk && !is_training() && !keyRows.defined() && q.device().is_cpu()) {
    const auto positions = q.transpose(1, 2).reshape({B * Sq, heads_, 1, headDim_});  // a view where it can be
    const auto sentenceOf = torch::arange(B, torch::TensorOptions().dtype(torch::kLong)).repeat_interleave(Sq);
    if (canAttendOneQuery(positions, sharedKeys, sharedValues, sentenceOf)) {
      auto attended = attendOneQuery(positions, sharedKeys, sharedValues, sharedKeyMask, sentenceOf, softmax);
      return {outputProjection(attended.context.view({B, Sq, dim_})),
              attended.weights.view({B, Sq, heads_, Sk}).permute({0, 2, 1, 3})};
    }
  }
  // otherwise each query row gets its own copy of the rows it reads
  const auto rows = keyRows.defined() ? keyRows.to(sharedKeys.device()) : torch::Tensor();
  auto own = [&](const torch::Tensor& t) { return rows.defined() && t.defined() ? t.index_select(0, rows) : t; };
  // keys and values a decoder keeps in bfloat16 (int8 layers) are made q's float32 again
  const auto keys = own(sharedKeys).to(q.scalar_type()), values = own(sharedValues).to(q.scalar_type());
  const auto keyMask = own(sharedKeyMask);
  // training's products: batchedProduct (LibTorch's bmm is slow on a CPU for many tiny matrices)
  const auto product = [this](const torch::Tensor& a, const torch::Tensor& b) {
    return is_training() ? batchedProduct(a, b) : torch::matmul(a, b);
  };
  auto scores = oneQuery ? (q * keys).sum(-1).unsqueeze(2) : product(q, keys.transpose(-2, -1));
  scores = scores / std::sqrt(static_cast<double>(headDim_));  // [B, H, Sq, Sk]
  const double minusInfinity = -std::numeric_limits<float>::infinity();
  if (keyMask.defined()) scores = scores.masked_fill(keyMask.logical_not().view({B, 1, 1, Sk}), minusInfinity);
  if (causal && Sq > 1) {  // the last of Sk positions sees them all
    const auto future = torch::ones({Sq, Sk}, keys.options().dtype(torch::kBool)).triu(Sk - Sq + 1);
    scores = scores.masked_fill(future, minusInfinity);
  }
  const auto weights = torch::softmax(scores, -1);
  const auto heads = oneQuery ? (weights.transpose(-2, -1) * values).sum(2, /*keepdim=*/true)
                              : product(drop(dropout_, weights), values);  // [B, H, Sq, dk]
  const auto joined = heads.transpose(1, 2).reshape({B, Sq, dim_});
  return {outputProjection(joined), weights};
}

bool MultiHeadAttentionImpl::usesFusedAttention(const torch::Tensor& q, const torch::Tensor& keyRows) const {
  return compat::kHasFusedAttention && is_training() && q.is_cuda() && !keyRows.defined();
}

void MultiHeadAttentionImpl::quantize(bool selfAttention) {
  for (Dense* projection : {&queryProjection, &keyProjection, &valueProjection, &outputProjection}) projection->quantize();
  if (selfAttention)
    int8QueryKeyValue_ = std::make_shared<const Int8Linear>(
        Int8Linear::stacked({queryProjection.int8(), keyProjection.int8(), valueProjection.int8()}));
}

std::tuple<torch::Tensor, torch::Tensor> MultiHeadAttentionImpl::forward(const torch::Tensor& query,
                                                                         const torch::Tensor& key,
                                                                         const torch::Tensor& value,
                                                                         const torch::Tensor& keyMask, bool causal) {
  const auto [keys, values] = projectKeysValues(key, value);
  return attend(query, keys, values, keyMask, causal);
}

}  // namespace nmt
