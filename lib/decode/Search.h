#pragma once

#include "data/Batch.h"
#include "decode/DecodingOptions.h"
#include "decode/Hypothesis.h"
#include "model/Seq2Seq.h"

#include <vector>

namespace nmt {

// The one entry to the searches: each batch row's hypotheses, best first, by greedy search
// (beamSize 1: one hypothesis) or beam search (up to nbest); among a slice's pieces only when given
// one (a shortlist). Call under inference mode.
std::vector<std::vector<Hypothesis>> search(Seq2Seq& model, const Batch& batch, const DecodingOptions& options,
                                            const OutputSlice* slice = nullptr);

}  // namespace nmt
