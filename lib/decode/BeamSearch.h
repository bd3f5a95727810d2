#pragma once

#include "data/Batch.h"
#include "decode/BatchShortlist.h"
#include "decode/DecodingOptions.h"
#include "decode/Hypothesis.h"
#include "decode/SentenceGuide.h"
#include "model/Seq2Seq.h"

#include <vector>

namespace nmt {

// Ranking score of a hypothesis with `length` pieces (</s> included) and log-probability `score`.
double normalizedScore(double score, std::size_t length, double alpha);

// Beam search over every row of a batch at once: the live beams of all its sentences go through
// the decoder together, one matrix per step (one sentence's K beams alone are too few rows to keep
// the matrix units busy). Each sentence is searched as if alone: a hypothesis ends at </s> (when
// among its K best candidates, so K = 1 is greedy search) or at its length limit; a sentence's
// search stops when K have ended and no live beam can rank above them. Row r of the result holds
// up to nbest hypotheses of batch row r, best first by normalizedScore; Hypothesis::score is the
// raw log-probability; Hypothesis::attention is kept as greedySearch keeps it, a row per step
// taken (</s> included). Call under inference mode.
// shortlist: each sentence chooses among its own list's pieces only (batch row r: ownPieces row r);
// null: the whole vocabulary. guides: one per batch row, or null; with them or options.noRepeatNgram,
// a step's candidates follow StepRules (batch row r begins with (*guides)[r].prefix).
std::vector<std::vector<Hypothesis>> beamSearch(Seq2Seq& model, const Batch& batch, const DecodingOptions& options,
                                                const BatchShortlist* shortlist = nullptr,
                                                const std::vector<SentenceGuide>* guides = nullptr);

}  // namespace nmt
