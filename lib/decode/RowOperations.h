#pragma once

#include <ATen/core/Tensor.h>

#include <cstddef>
#include <utility>
#include <vector>

namespace nmt {

// Each row's largest log-probability and its place: what logProbs.max(-1) returns (the first of equal
// entries; a NaN before any number): through rowTopK's one pass a row for a float32 matrix on the CPU.
std::pair<at::Tensor, at::Tensor> bestOfEachRow(const at::Tensor& logProbs);

// The rows that go on (given in row order): each keeps its place, and those after the last hole
// move into the holes, last first, so that a search that ends moves one row's state (or one
// sentence's beams) rather than every row after it. The order of rows decides nothing.
std::vector<std::size_t> holesFilledFromTheEnd(const std::vector<bool>& goesOn);

}  // namespace nmt
