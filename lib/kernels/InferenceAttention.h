#pragma once

#include <ATen/core/Tensor.h>

namespace nmt {

// Scaled dot-product attention of one query a row, as a decoding step asks it (no gradient): per row
// and head, softmax(q K^T / sqrt(dk)) over the keys (masked ones -inf), then those weights times V, in
// two passes over keys and values with no [B, H, Sk, dk] products in between (LibTorch's mul and sum
// made and read two such tensors a head: a third of a beam search's time) and no tiny matrix product
// per row and head (bmm).

// How the softmax is taken: LibTorch's (float32 models: their numbers as they have always been), or
// fused into the pass over each head's scores with this file's own exponential (models with int8
// weights, whose numbers already differ from float32's: no operator call per layer and step; beam 5
// 3% faster).
enum class AttentionSoftmax { Torch, Fused };

struct OneQueryAttention {
  at::Tensor context;  // [B, 1, H * dk]: the heads side by side, as the output projection reads them
  at::Tensor weights;  // [B, H, 1, Sk]
};

// Whether attendOneQuery takes these: float32 on the CPU, no gradient wanted, each head's vector
// contiguous (the last stride 1), keyRows (when given) on the CPU.
bool canAttendOneQuery(const at::Tensor& q, const at::Tensor& keys, const at::Tensor& values,
                       const at::Tensor& keyRows = {});

// One query a row, as a decoding step asks it. q [B, H, 1, dk], keys and values [M, H, Sk, dk], keyMask
// [M, Sk] bool (true: a real position) or undefined; keyRows [B] int64: the row of keys, values and
// keyMask each query row reads (undefined: row b reads row b, and M = B). Query rows that share a row
// and come one after the other find it in the cache: a beam search's beams read their sentence's
// memory once.
OneQueryAttention attendOneQuery(const at::Tensor& q, const at::Tensor& keys, const at::Tensor& values,
                                 const at::Tensor& keyMask, const at::Tensor& keyRows = {},
                                 AttentionSoftmax softmax = AttentionSoftmax::Torch);

// Each row's values weighted by its own weights: context[b] = the sum over j of weights[b][j] values[b][j],
// the positions in order, as attendOneQuery's context is made. weights [B, S], values [B, S, D]; for
// weights that come from elsewhere (Bahdanau's attention), where bmm packed each row's values for its
// one-row product (a tenth of an RNN greedy step). canWeightValues: float32 on the CPU, no gradient
// wanted, each value row contiguous.
bool canWeightValues(const at::Tensor& weights, const at::Tensor& values);
at::Tensor weightedValues(const at::Tensor& weights, const at::Tensor& values);

}  // namespace nmt
