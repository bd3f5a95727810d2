#pragma once

#include "decode/DecodeLimits.h"
#include "decode/GreedySearch.h"
#include "model/Seq2Seq.h"

#include <vector>

namespace nmt {

struct BeamOptions {
  int64_t beamSize = 5;
  int64_t nbest = 1;           // hypotheses returned, best first (at most beamSize)
  double lengthPenalty = 1.0;  // alpha of GNMT's ((5 + length) / 6)^alpha; 0 ranks by raw log-probability
};

// Ranking score of a hypothesis with `length` pieces (</s> included) and log-probability `score`.
double normalizedScore(double score, std::size_t length, double alpha);

// Beam search over one source sentence (source [1, S] with its mask and length, as a Batch
// row). A hypothesis ends at </s> (when among the K best candidates, so K = 1 is greedy search)
// or at the length limit; search stops when K have ended and no live one can rank above them.
// Returns up to nbest hypotheses, best first by normalizedScore; Hypothesis::score is the raw
// log-probability. Call under inference mode.
std::vector<Hypothesis> beamSearch(Seq2Seq& model, const at::Tensor& source, const at::Tensor& sourceLength,
                                   const at::Tensor& sourceMask, const DecodeLimits& limits, const BeamOptions& options);

}  // namespace nmt
