#pragma once

#include "data/Batch.h"
#include "decode/BatchShortlist.h"
#include "decode/DecodeLimits.h"
#include "decode/Hypothesis.h"
#include "model/Seq2Seq.h"

#include <vector>

namespace nmt {

// Batched greedy decoding of batch.source; row r of the result is row r of the batch. Runs
// until every row has produced </s> or reached its limit. Call it under inference mode.
// shortlist: each row chooses among its own list's pieces only (row r: ownPieces row r); null: the
// whole vocabulary. Without scores each Hypothesis::score is NaN (the same tokens, found faster).
std::vector<Hypothesis> greedySearch(Seq2Seq& model, const Batch& batch, const DecodeLimits& limits,
                                     bool keepAttention = false, const BatchShortlist* shortlist = nullptr,
                                     bool scores = true);

}  // namespace nmt
