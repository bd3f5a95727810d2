#pragma once

#include "model/OutputSlice.h"

#include <ATen/core/Tensor.h>

namespace nmt {

// Greedy search's pick from a step's logits [rows, V], the pieces a row may not produce already at
// -inf (leaveOutUnproducible; a shortlist's masks may come as rowMasks instead): each row's largest logit (the first of equal ones) and its
// log-probability under the row's softmax, as log_softmax and the row's best give them. A row with a
// NaN gets what log_softmax and the row's best give it (NaN log-probabilities all along: the first place).
struct GreedyPick {
  at::Tensor logProbs;  // [rows] float32 (the logits' type elsewhere); undefined when not asked for
  at::Tensor ids;       // [rows] int64: columns of `logits`
};

// On the CPU in float32: a pass a row for its largest logit and place, and one summing e^(x - largest)
// (this toolkit's e^x, within 2 units in the last place of the exact one), where making every
// log-probability first wrote the whole [rows, V] matrix. Elsewhere log_softmax, then the row's best.
// Without logProbs the CPU way skips the second pass (the softmax's normaliser), a twentieth of an
// int8 greedy search; the ids are the same either way.
// rowMasks: [rows, V] float32 added to the logits first (a shortlist's rows of BatchShortlist::ownPieces,
// as leaveOutUnproducible would add them, here a row at a time where it is read: the same numbers
// without a pass over the whole matrix), or undefined.
GreedyPick greedyPick(const at::Tensor& logits, bool logProbs = true, const at::Tensor& rowMasks = {});

// Each row of logits [rows, V] made its log-softmax in place, the normaliser summed over the entries
// above -inf only (in order, each k-th of them in lane k % 8): a row's log-probabilities do not depend on
// which other columns (another sentence's shortlist) share its slice at -inf, as with a slice greedyPick's
// are not either. Elsewhere than the CPU's contiguous float32: LibTorch's log_softmax (logits replaced).
void logSoftmaxOverProducible(at::Tensor& logits);

// A greedy step's choice from a decoder step's logits [rows, V or slice size], as both greedy
// searches make it (GreedySearch, ContinuousGreedySearch): without a slice, the special ids no
// translation produces are left out (leaveOutUnproducible, in place); with one, each row's
// rowMasks row (its sentence's own pieces) is added; then greedyPick, and the slice's columns
// become vocabulary ids. ids: [rows] int64 vocabulary ids.
GreedyPick greedyStep(at::Tensor& logits, const OutputSlice* slice, const at::Tensor& rowMasks, bool logProbs);

}  // namespace nmt
