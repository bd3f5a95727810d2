#pragma once

#include <cstdint>

namespace nmt {

// The parts of a row's softmax that greedy search and beam search's log-softmax take one row at a
// time (decode/GreedyPick), on contiguous float32, eight lanes at a time in the CPU's widest clone
// (kernels/VectorClones.h), every clone rounding alike.

// A row's largest entry and its first place (eight lanes, each keeping its own first largest), then
// (with sum) the sum of e^(x - largest) over the row (this toolkit's e^x, within 2 units in the last
// place of the exact one). NaN anywhere, or nothing above -inf: *place is -1 and the rest unset.
void largestAndSum(const float* row, int64_t n, float* largest, int64_t* place, float* sum);

// The sum of e^(x - largest) over the entries that can be produced (above -inf), the k-th of them
// always in lane k % 8: it depends on those entries and their order alone, so a sentence's row in a
// batch's shortlist slice (the union of its sentences' lists, in id order, the others' columns at -inf)
// sums exactly as the row of the sentence alone does.
float producibleSum(const float* row, int64_t n, float largest);

// out = row + mask, n entries (a row's worth, so that it stays in the nearest cache).
void addRows(const float* row, const float* mask, int64_t n, float* out);

}  // namespace nmt
