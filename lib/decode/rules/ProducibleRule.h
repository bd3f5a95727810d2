#pragma once

#include <ATen/core/Tensor.h>

namespace nmt {

// The first rule of every step, before the softmax: each row's logits [rows, V] of the pieces it may
// not produce become -inf, in place, so that its log-probabilities are normalised over the pieces it may
// produce. Without a shortlist (rowMasks undefined) those are the special ids no translation produces
// (SpecialIds::producible); with one, rowMasks [rows, N] holds each row's sentence's row of
// BatchShortlist::ownPieces, added to the sliced logits. (greedyPick may take rowMasks instead and
// apply it where it reads a row: the same numbers, fused.)
void leaveOutUnproducible(at::Tensor& logits, const at::Tensor& rowMasks);

}  // namespace nmt
