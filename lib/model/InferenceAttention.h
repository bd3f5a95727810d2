#pragma once

#include <ATen/core/Tensor.h>

namespace nmt {

// Scaled dot-product attention for translation (no gradient): per row and head, softmax(q K^T /
// sqrt(dk)) over the keys (masked ones -inf), then those weights times V, in two passes over keys and
// values with no [B, H, Sq, Sk, dk] products in between (LibTorch's mul and sum made and read two such
// tensors a head: a third of a beam search's time) and no tiny matrix product per row and head (bmm:
// its packing and calls, 7% of a greedy run in the encoder).

// How the softmax is taken: LibTorch's (float32 models: their numbers as they have always been), or
// fused into the pass over each head's scores with this file's own exponential (models with int8
// weights, whose numbers already differ from float32's: no operator call per step and head).
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

struct QueriesAttention {
  at::Tensor context;  // [B, Sq, H * dk]
  at::Tensor weights;  // [B, H, Sq, Sk]
};

// Whether attendQueries takes these: as canAttendOneQuery, any number of queries, keys of the queries' rows.
bool canAttendQueries(const at::Tensor& q, const at::Tensor& keys, const at::Tensor& values);

// Every query of each row at once (the encoder's self-attention, a decoder reading a whole target):
// q [B, H, Sq, dk], keys and values [B, H, Sk, dk], keyMask [B, Sk] or undefined; causal: query i sees
// the keys up to Sk - Sq + i (the queries are the last Sq of the Sk positions).
QueriesAttention attendQueries(const at::Tensor& q, const at::Tensor& keys, const at::Tensor& values,
                               const at::Tensor& keyMask, bool causal, AttentionSoftmax softmax);

}  // namespace nmt
