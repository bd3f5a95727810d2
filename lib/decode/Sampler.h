#pragma once

#include "decode/DecodingOptions.h"
#include "decode/StepColumns.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace nmt {

// A number in [0, 1) that depends on nothing but (seed, stream, step): a counter-based draw, so that
// a sentence's samples do not depend on which rows share its batch or which thread decodes it.
double uniformDraw(uint64_t seed, uint64_t stream, uint64_t step);

// One draw a row from log-probabilities [rows, columns] (float32 or float64, any device; -inf where a
// row may not choose), as `sampling` says: among the topk largest (0: all finite), at temperature,
// cut to the fewest whose probabilities sum to topp (ties broken by the lower column). Row i draws
// uniformDraw(seed, streams[i], steps[i]). Returns [rows] int64 columns on logProbs' device; a row with
// nothing finite gets its largest entry's column (as greedy search would).
at::Tensor samplePieces(const at::Tensor& logProbs, const Sampling& sampling, const std::vector<uint64_t>& streams,
                        const std::vector<uint64_t>& steps);

// One of a sentence's beam-search candidates: its score (the beam's plus the piece's log-probability)
// and index over its beams (beam * V + column).
struct SampledCandidate {
  double score;
  int64_t index;
};

// Sampling with beam search: `count` of a sentence's candidates drawn without replacement, in the order
// drawn, each (beam b, column c) with probability proportional to exp((beamScores[b] + rows[b][c]) /
// temperature) among the pieces a draw from beam b's row keeps (its topk, topp; samplePieces). rows:
// [beams, V] log-probabilities, -inf where a beam may not go; a beam whose score is -inf has none.
// Gumbel-top-k (Kool et al. 2019): each candidate's key is its tempered score plus -log(-log u), u =
// uniformDraw(seed, stream, step, b, its piece), and the `count` largest keys are drawn; so a sentence's
// candidates depend on its own beams only, not on the batch or the shortlist's slice.
std::vector<SampledCandidate> sampleCandidates(const double* rows, const std::vector<double>& beamScores, int64_t V,
                                               const StepColumns& columns, const Sampling& sampling, uint64_t stream,
                                               uint64_t step, std::size_t count);

}  // namespace nmt
