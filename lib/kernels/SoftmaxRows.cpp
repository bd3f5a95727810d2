#include "kernels/SoftmaxRows.h"

#include "kernels/VectorClones.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace nmt {

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

}  // namespace nmt
