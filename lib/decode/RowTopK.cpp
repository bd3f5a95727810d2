#include "decode/RowTopK.h"

#include "kernels/VectorClones.h"

#include <ATen/ATen.h>

#include <cmath>
#include <cstdint>

namespace nmt {
namespace {

// Whether a comes before b: the larger first, NaN before any number.
inline bool before(float a, float b) { return std::isnan(a) ? !std::isnan(b) : a > b; }

// Puts `value` at `place` into the k best (values/places, best first) if it comes before the last.
inline void offer(float value, int64_t place, float* values, int64_t* places, int64_t k) {
  if (!before(value, values[k - 1])) return;  // an equal entry that came earlier stays ahead
  int64_t i = k - 1;
  for (; i > 0 && before(value, values[i - 1]); --i) {
    values[i] = values[i - 1];
    places[i] = places[i - 1];
  }
  values[i] = value;
  places[i] = place;
}

NMT_VECTOR_CLONES void topOfRow(const float* row, int64_t n, int64_t k, float* values, int64_t* places) {
  int64_t filled = 0;
  for (; filled < k; ++filled) {  // the first k, in order
    int64_t i = filled;
    for (; i > 0 && before(row[filled], values[i - 1]); --i) {
      values[i] = values[i - 1];
      places[i] = places[i - 1];
    }
    values[i] = row[filled];
    places[i] = filled;
  }
  int64_t j = k;
  for (; j + 16 <= n; j += 16) {
    const float last = values[k - 1];
    // an entry that beats the k-th best, or a NaN (which compares false with everything); written
    // as a plain loop, which the compiler turns into one vector comparison
    int beats = 0;
    for (int64_t i = j; i < j + 16; ++i) beats |= !(row[i] <= last);
    if (!beats) continue;
    for (int64_t i = j; i < j + 16; ++i) offer(row[i], i, values, places, k);
  }
  for (; j < n; ++j) offer(row[j], j, values, places, k);
}

}  // namespace

std::pair<at::Tensor, at::Tensor> rowTopK(const at::Tensor& scores, int64_t k) {
  if (!scores.device().is_cpu() || scores.scalar_type() != at::kFloat || scores.dim() != 2 || k < 1 ||
      k > scores.size(1)) {
    auto [values, places] = scores.topk(k, 1);
    return {values, places};
  }
  const auto rows = scores.contiguous();
  const int64_t R = rows.size(0), n = rows.size(1);
  auto values = at::empty({R, k}, rows.options());
  auto places = at::empty({R, k}, rows.options().dtype(at::kLong));
  const float* in = rows.data_ptr<float>();
  float* v = values.data_ptr<float>();
  int64_t* p = places.data_ptr<int64_t>();
  for (int64_t r = 0; r < R; ++r) topOfRow(in + r * n, n, k, v + r * k, p + r * k);
  return {values, places};
}

}  // namespace nmt
