#pragma once

#include "data/Batch.h"
#include "decode/BatchShortlist.h"
#include "decode/DecodingPlan.h"
#include "decode/Hypothesis.h"
#include "decode/SentenceGuide.h"
#include "model/Seq2Seq.h"

#include <vector>

namespace nmt {

// One batch decoded start to end as the plan says: beam search for kBeamBatches, else greedy search
// (what a running batch gives each sentence too, to float rounding). Each batch row's hypotheses, best
// first (greedy: one; beam: up to nbest); each row among its own shortlist's pieces only when given the
// batch's (row r: its ownPieces row r); guides: one per batch row (its prefix, its samples' stream), or
// null. Call under inference mode.
std::vector<std::vector<Hypothesis>> search(Seq2Seq& model, const Batch& batch, const DecodingPlan& plan,
                                            const BatchShortlist* shortlist = nullptr,
                                            const std::vector<SentenceGuide>* guides = nullptr);

}  // namespace nmt
