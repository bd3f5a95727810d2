#pragma once

#include "decode/DecodingOptions.h"

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

}  // namespace nmt
