#pragma once

#include "data/Batch.h"
#include "decode/BatchShortlist.h"
#include "decode/DecodeLimits.h"
#include "decode/DecodingOptions.h"
#include "decode/Hypothesis.h"
#include "decode/SentenceGuide.h"
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
// The same with the options' limits, attention and scores, and where asked, rows guided (StepRules:
// batch row r begins with (*guides)[r].prefix; no repeated n-grams) and pieces drawn (options.sampling,
// row r from stream (*guides)[r].stream, else r) instead of the most likely taken. A guided or sampled
// step takes each piece's log-probability from log_softmax (the first of equal largest where it picks).
std::vector<Hypothesis> greedySearch(Seq2Seq& model, const Batch& batch, const DecodingOptions& options,
                                     const BatchShortlist* shortlist, const std::vector<SentenceGuide>* guides);

}  // namespace nmt
