#pragma once

#include "data/Batch.h"
#include "decode/BatchShortlist.h"
#include "decode/DecodingOptions.h"
#include "decode/Hypothesis.h"
#include "model/Seq2Seq.h"

#include <utility>
#include <vector>

namespace nmt {

// The one entry to the searches: each batch row's hypotheses, best first, by greedy search
// (beamSize 1: one hypothesis) or beam search (up to nbest); each row among its own shortlist's
// pieces only when given the batch's (row r: its ownPieces row r). Call under inference mode.
std::vector<std::vector<Hypothesis>> search(Seq2Seq& model, const Batch& batch, const DecodingOptions& options,
                                            const BatchShortlist* shortlist = nullptr);

// Each row's largest log-probability and its place: what logProbs.max(-1) returns (the first of equal
// entries; a NaN before any number): through rowTopK's one pass a row for a float32 matrix on the CPU.
std::pair<at::Tensor, at::Tensor> bestOfEachRow(const at::Tensor& logProbs);

// The rows that go on (given in row order): each keeps its place, and those after the last hole
// move into the holes, last first, so that a search that ends moves one row's state (or one
// sentence's beams) rather than every row after it. The order of rows decides nothing.
std::vector<std::size_t> holesFilledFromTheEnd(const std::vector<bool>& goesOn);

}  // namespace nmt
