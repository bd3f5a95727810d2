#include "kernels/CrossEntropyRows.h"

#include "kernels/VectorClones.h"

#include <cmath>
#include <limits>

namespace nmt {
namespace {

inline void storeOne(float* p, float x) { *p = x; }
inline void storeOne(uint16_t* p, float x) { *p = bfloat16Of(x); }
inline float expOfOne(float x) {
  Floats8 v = {};
  v[0] = x;
  expOfNonPositive(v);
  return v[0];
}

template <typename T>
__attribute__((always_inline)) inline RowLogSumExp logSumExpOf(const T* row, int64_t n) {
  const float minusInfinity = -std::numeric_limits<float>::infinity();
  Floats8 best = Floats8{} + minusInfinity;
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    Floats8 v;
    load8(v, row + j);
    best = v > best ? v : best;
  }
  float largest = minusInfinity;
  for (int k = 0; k < 8; ++k) largest = best[k] > largest ? best[k] : largest;
  for (; j < n; ++j) largest = floatOf(row[j]) > largest ? floatOf(row[j]) : largest;
  Floats8 exps = {}, sums = {};
  j = 0;
  for (; j + 8 <= n; j += 8) {
    Floats8 v;
    load8(v, row + j);
    sums += v;
    v -= largest;
    expOfNonPositive(v);
    exps += v;
  }
  float e = laneSum(exps), sum = laneSum(sums);
  for (; j < n; ++j) {
    const float x = floatOf(row[j]);
    sum += x;
    e += expOfOne(x - largest);
  }
  // e >= 1 (the largest's own term is exactly 1), so no x - logSumExp is above 0
  return {largest + std::log(e), sum};
}

template <typename T>
__attribute__((always_inline)) inline void gradientOf(const T* row, int64_t n, float logSumExp, int64_t gold,
                                                      float goldWeight, float uniform, float scale, T* out) {
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    Floats8 v;
    load8(v, row + j);
    v -= logSumExp;
    expOfNonPositive(v);
    store8(out + j, (v - uniform) * scale);
  }
  for (; j < n; ++j) storeOne(out + j, (expOfOne(floatOf(row[j]) - logSumExp) - uniform) * scale);
  if (gold >= 0 && gold < n)
    storeOne(out + gold, (expOfOne(floatOf(row[gold]) - logSumExp) - uniform - goldWeight) * scale);
}

}  // namespace

NMT_VECTOR_CLONES RowLogSumExp rowLogSumExp(const float* row, int64_t n) { return logSumExpOf(row, n); }
NMT_VECTOR_CLONES RowLogSumExp rowLogSumExp(const uint16_t* row, int64_t n) { return logSumExpOf(row, n); }

NMT_VECTOR_CLONES void smoothedCrossEntropyGradient(const float* row, int64_t n, float logSumExp, int64_t gold,
                                                    float goldWeight, float uniform, float scale, float* out) {
  gradientOf(row, n, logSumExp, gold, goldWeight, uniform, scale, out);
}
NMT_VECTOR_CLONES void smoothedCrossEntropyGradient(const uint16_t* row, int64_t n, float logSumExp, int64_t gold,
                                                    float goldWeight, float uniform, float scale, uint16_t* out) {
  gradientOf(row, n, logSumExp, gold, goldWeight, uniform, scale, out);
}

}  // namespace nmt
