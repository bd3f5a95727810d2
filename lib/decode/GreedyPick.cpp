#include "decode/GreedyPick.h"

#include "decode/BatchShortlist.h"
#include "decode/RowOperations.h"
#include "kernels/VectorClones.h"

#include <ATen/ATen.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace nmt {
namespace {

// A row's largest entry and its first place (eight lanes, each keeping its own first largest), then (with
// sum) the sum of e^(x - largest) over the row. NaN anywhere: *place is -1.
NMT_VECTOR_CLONES void largestAndSum(const float* row, int64_t n, float* largest, int64_t* place, float* sum) {
  const float minusInfinity = -std::numeric_limits<float>::infinity();
  Floats8 best = Floats8{} + minusInfinity;
  Ints8 bestPlace = {}, lane = {0, 1, 2, 3, 4, 5, 6, 7};
  Ints8 nan = {};
  int64_t j = 0;
  for (; j + 8 <= n; j += 8, lane += 8) {
    Floats8 v;
    load8(v, row + j);
    const Ints8 beats = v > best;  // strictly: a lane keeps its first largest
    best = beats ? v : best;
    bestPlace = beats ? lane : bestPlace;
    nan |= v != v;
  }
  float m = minusInfinity;
  int64_t at = 0;
  bool anyNan = false;
  for (int k = 0; k < 8; ++k) {
    anyNan |= nan[k] != 0;
    if (best[k] > m || (best[k] == m && bestPlace[k] < at)) {
      m = best[k];
      at = bestPlace[k];
    }
  }
  for (; j < n; ++j) {  // after every lane's places: only a larger one replaces
    anyNan |= std::isnan(row[j]);
    if (row[j] > m) {
      m = row[j];
      at = j;
    }
  }
  if (anyNan || m == minusInfinity) {
    *place = -1;
    return;
  }
  *largest = m;
  *place = at;
  if (!sum) return;
  Floats8 lanes = {};
  j = 0;
  for (; j + 8 <= n; j += 8) {
    Floats8 v;
    load8(v, row + j);
    v -= m;
    expOfNonPositive(v);
    lanes += v;
  }
  float total = laneSum(lanes);
  if (j < n) {  // the tail through one padded vector
    Floats8 v = Floats8{} + minusInfinity;
    std::memcpy(&v, row + j, static_cast<std::size_t>(n - j) * sizeof(float));
    v -= m;
    expOfNonPositive(v);
    for (int64_t k = 0; k < n - j; ++k) total += v[k];
  }
  *sum = total;
}

// The sum of e^(x - largest) over the entries that can be produced (above -inf), the k-th of them
// always in lane k % 8: it depends on those entries and their order alone, so a sentence's row in a
// batch's shortlist slice (the union of its sentences' lists, in id order, the others' columns at -inf)
// sums exactly as the row of the sentence alone does.
NMT_VECTOR_CLONES float producibleSum(const float* row, int64_t n, float largest) {
  const float minusInfinity = -std::numeric_limits<float>::infinity();
  Floats8 lanes = {}, pending = Floats8{} + minusInfinity;
  int filled = 0;
  for (int64_t j = 0; j < n; ++j) {
    if (row[j] == minusInfinity) continue;
    pending[filled++] = row[j] - largest;
    if (filled == 8) {
      expOfNonPositive(pending);
      lanes += pending;
      pending = Floats8{} + minusInfinity;
      filled = 0;
    }
  }
  if (filled > 0) {
    expOfNonPositive(pending);  // the unfilled lanes: e^-inf, exactly 0
    lanes += pending;
  }
  return laneSum(lanes);
}

GreedyPick throughLogSoftmax(const at::Tensor& logits, bool withLogProbs) {
  const auto logProbs = at::log_softmax(logits, -1);
  auto [best, places] = bestOfEachRow(logProbs);
  return {withLogProbs ? best : at::Tensor(), places};
}

// row + mask, eight at a time, into out (a row's worth, so it stays in the nearest cache)
NMT_VECTOR_CLONES void addRows(const float* row, const float* mask, int64_t n, float* out) {
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    Floats8 v, w;
    load8(v, row + j);
    load8(w, mask + j);
    store8(out + j, v + w);
  }
  for (; j < n; ++j) out[j] = row[j] + mask[j];
}

}  // namespace

GreedyPick greedyPick(const at::Tensor& logits, bool withLogProbs, const at::Tensor& rowMasks) {
  if (!logits.device().is_cpu() || logits.scalar_type() != at::kFloat || logits.dim() != 2 || logits.size(1) == 0 ||
      (rowMasks.defined() && (rowMasks.scalar_type() != at::kFloat || !rowMasks.is_contiguous()))) {
    if (!rowMasks.defined()) return throughLogSoftmax(logits, withLogProbs);
    return throughLogSoftmax(logits + rowMasks, withLogProbs);
  }
  const auto rows = logits.contiguous();
  const int64_t R = rows.size(0), V = rows.size(1);
  auto logProbs = withLogProbs ? at::empty({R}, rows.options()) : at::Tensor();
  auto ids = at::empty({R}, rows.options().dtype(at::kLong));
  float* lp = withLogProbs ? logProbs.data_ptr<float>() : nullptr;
  int64_t* id = ids.data_ptr<int64_t>();
  std::vector<float> masked(rowMasks.defined() ? static_cast<std::size_t>(V) : 0);
  for (int64_t r = 0; r < R; ++r) {
    const float* row = rows.data_ptr<float>() + r * V;
    if (rowMasks.defined()) {  // the row as leaveOutUnproducible leaves it, made where it is read
      addRows(row, rowMasks.data_ptr<float>() + r * V, V, masked.data());
      row = masked.data();
    }
    float largest = 0, sum = 0;
    int64_t place = -1;
    // with a shortlist's masks the normaliser is taken over the row's own columns alone (producibleSum)
    largestAndSum(row, V, &largest, &place, lp && !rowMasks.defined() ? &sum : nullptr);
    if (lp && rowMasks.defined() && place >= 0) sum = producibleSum(row, V, largest);
    if (place < 0) {  // NaN (or nothing but -inf): as log_softmax and the row's best have it
      const auto one = throughLogSoftmax(at::from_blob(const_cast<float*>(row), {1, V}, rows.options()), true);
      if (lp) lp[r] = one.logProbs.item<float>();
      id[r] = one.ids.item<int64_t>();
      continue;
    }
    if (lp) lp[r] = (row[place] - largest) - std::log(sum);
    id[r] = place;
  }
  return {logProbs, ids};
}

void logSoftmaxOverProducible(at::Tensor& logits) {
  if (!logits.device().is_cpu() || logits.scalar_type() != at::kFloat || logits.dim() != 2 || !logits.is_contiguous()) {
    logits = at::log_softmax(logits, -1);
    return;
  }
  const int64_t R = logits.size(0), V = logits.size(1);
  for (int64_t r = 0; r < R; ++r) {
    float* row = logits.data_ptr<float>() + r * V;
    float largest = 0;
    int64_t place = -1;
    largestAndSum(row, V, &largest, &place, nullptr);
    if (place < 0) {  // NaN, or nothing but -inf: as log_softmax has it
      auto one = at::from_blob(row, {1, V}, logits.options());
      one.copy_(at::log_softmax(one, -1));
      continue;
    }
    const float logSum = largest + std::log(producibleSum(row, V, largest));
    for (int64_t j = 0; j < V; ++j) row[j] -= logSum;  // -inf stays -inf
  }
}

GreedyPick greedyStep(at::Tensor& logits, const OutputSlice* slice, const at::Tensor& rowMasks, bool logProbs) {
  if (!slice) leaveOutUnproducible(logits, at::Tensor());  // a shortlist's masks: greedyPick adds them
  auto pick = greedyPick(logits, logProbs, slice ? rowMasks : at::Tensor());
  if (slice) pick.ids = slice->deviceIds.index_select(0, pick.ids);
  return pick;
}

}  // namespace nmt
