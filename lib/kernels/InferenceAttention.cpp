#include "kernels/InferenceAttention.h"

#include "kernels/VectorClones.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace nmt {
namespace {

// Keys and values are float32, or bfloat16 (their bits, uint16_t: models with int8 weights keep a
// decoder's caches so, half the bytes every step reads); each element is made a float as it is
// read, q and the sums stay float32.

// q . key over dk elements: eight lanes, then laneSum, then the elements past the last eight.
template <class Element>
inline float dot(const float* q, const Element* key, int64_t dk) {
  Floats8 lanes = {};
  int64_t d = 0;
  for (; d + 8 <= dk; d += 8) {
    Floats8 a, b;
    load8(a, q + d);
    load8(b, key + d);
    lanes += a * b;
  }
  float sum = laneSum(lanes);
  for (; d < dk; ++d) sum += q[d] * floatOf(key[d]);
  return sum;
}

// One head of one row: scores[j] = q . keys[j] / scale, -inf where the position is masked out. Four
// keys at a time, in four sums of their own: each key's sum is dot's, operation for operation, but
// the four do not wait on one another's additions.
template <class Element>
__attribute__((always_inline)) inline void headScoresOf(const float* q, const Element* keys, int64_t keyStride,
                                                        int64_t Sk, int64_t dk, const bool* real, float scale,
                                                        float* scores) {
  int64_t j = 0;
  for (; j + 4 <= Sk; j += 4) {
    const Element* k0 = keys + j * keyStride;
    const Element *k1 = k0 + keyStride, *k2 = k1 + keyStride, *k3 = k2 + keyStride;
    Floats8 s0 = {}, s1 = {}, s2 = {}, s3 = {};
    int64_t d = 0;
    for (; d + 16 <= dk; d += 16) {  // the same additions as eight at a time, fewer instructions for bfloat16
      Floats8 a, a8, b0, b08, b1, b18, b2, b28, b3, b38;
      load16(a, a8, q + d);
      load16(b0, b08, k0 + d);
      load16(b1, b18, k1 + d);
      load16(b2, b28, k2 + d);
      load16(b3, b38, k3 + d);
      s0 += a * b0;
      s1 += a * b1;
      s2 += a * b2;
      s3 += a * b3;
      s0 += a8 * b08;
      s1 += a8 * b18;
      s2 += a8 * b28;
      s3 += a8 * b38;
    }
    for (; d + 8 <= dk; d += 8) {
      Floats8 a, b0, b1, b2, b3;
      load8(a, q + d);
      load8(b0, k0 + d);
      load8(b1, k1 + d);
      load8(b2, k2 + d);
      load8(b3, k3 + d);
      s0 += a * b0;
      s1 += a * b1;
      s2 += a * b2;
      s3 += a * b3;
    }
    float sums[4];
    laneSums(s0, s1, s2, s3, sums);
    for (; d < dk; ++d) {
      sums[0] += q[d] * floatOf(k0[d]);
      sums[1] += q[d] * floatOf(k1[d]);
      sums[2] += q[d] * floatOf(k2[d]);
      sums[3] += q[d] * floatOf(k3[d]);
    }
    Floats4 quotients;
    std::memcpy(&quotients, sums, sizeof quotients);
    quotients /= scale;
    std::memcpy(scores + j, &quotients, sizeof quotients);
  }
  for (; j < Sk; ++j) scores[j] = dot(q, keys + j * keyStride, dk) / scale;
  if (real)
    for (j = 0; j < Sk; ++j)
      if (!real[j]) scores[j] = -std::numeric_limits<float>::infinity();
}

// One head of one row: context = sum over j of weights[j] values[j], the positions in order. Four
// vectors of the context at a time stay in registers over all positions (each float's sum is the
// same as one kept in memory: 0, then + values[j][d] weights[j] for j in order).
template <class Element>
__attribute__((always_inline)) inline void headContextOf(const float* weights, const Element* values,
                                                         int64_t valueStride, int64_t Sk, int64_t dk, float* context) {
  int64_t d = 0;
  for (; d + 32 <= dk; d += 32) {
    Floats8 c0 = {}, c1 = {}, c2 = {}, c3 = {};
    for (int64_t j = 0; j < Sk; ++j) {
      const float w = weights[j];
      const Element* value = values + j * valueStride + d;
      Floats8 v0, v1, v2, v3;
      load16(v0, v1, value);
      load16(v2, v3, value + 16);
      c0 += v0 * w;
      c1 += v1 * w;
      c2 += v2 * w;
      c3 += v3 * w;
    }
    store8(context + d, c0);
    store8(context + d + 8, c1);
    store8(context + d + 16, c2);
    store8(context + d + 24, c3);
  }
  for (; d + 8 <= dk; d += 8) {
    Floats8 c = {};
    for (int64_t j = 0; j < Sk; ++j) {
      Floats8 v;
      load8(v, values + j * valueStride + d);
      c += v * weights[j];
    }
    store8(context + d, c);
  }
  for (; d < dk; ++d) {
    float c = 0.0f;
    for (int64_t j = 0; j < Sk; ++j) c += floatOf(values[j * valueStride + d]) * weights[j];
    context[d] = c;
  }
}

NMT_VECTOR_CLONES void headScores(const float* q, const float* keys, int64_t keyStride, int64_t Sk, int64_t dk,
                                  const bool* real, float scale, float* scores) {
  headScoresOf(q, keys, keyStride, Sk, dk, real, scale, scores);
}
NMT_VECTOR_CLONES void headScores(const float* q, const uint16_t* keys, int64_t keyStride, int64_t Sk, int64_t dk,
                                  const bool* real, float scale, float* scores) {
  headScoresOf(q, keys, keyStride, Sk, dk, real, scale, scores);
}
NMT_VECTOR_CLONES void headContext(const float* weights, const float* values, int64_t valueStride, int64_t Sk,
                                   int64_t dk, float* context) {
  headContextOf(weights, values, valueStride, Sk, dk, context);
}
NMT_VECTOR_CLONES void headContext(const float* weights, const uint16_t* values, int64_t valueStride, int64_t Sk,
                                   int64_t dk, float* context) {
  headContextOf(weights, values, valueStride, Sk, dk, context);
}

// row[0..n) = softmax(row) in place: e^(x - largest) / their sum; a row with every position masked
// (-inf) becomes zeros. Position j is always added into lane j % 8, the tail too (through a vector
// padded with -inf, whose e^ is exactly 0): masked positions past a row's last real one change no
// sum, so a sentence gets the same weights however far a batch pads it (int8 layers after this would
// turn a last-bit difference into a different rounding, and a near-tie into another translation).
NMT_VECTOR_CLONES void softmaxInPlace(float* row, int64_t n) {
  float largest = -std::numeric_limits<float>::infinity();
  for (int64_t j = 0; j < n; ++j) largest = std::max(largest, row[j]);
  if (largest == -std::numeric_limits<float>::infinity()) {
    for (int64_t j = 0; j < n; ++j) row[j] = 0.0f;
    return;
  }
  Floats8 lanes = {};
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    Floats8 v;
    load8(v, row + j);
    v -= largest;
    expOfNonPositive(v);
    store8(row + j, v);
    lanes += v;
  }
  if (j < n) {  // the tail through one padded vector
    Floats8 v = Floats8{} - std::numeric_limits<float>::infinity();
    std::memcpy(&v, row + j, static_cast<std::size_t>(n - j) * sizeof(float));
    v -= largest;
    expOfNonPositive(v);
    std::memcpy(row + j, &v, static_cast<std::size_t>(n - j) * sizeof(float));
    lanes += v;
  }
  const float inverse = 1.0f / laneSum(lanes);
  for (j = 0; j < n; ++j) row[j] *= inverse;
}

// Each [.., Sk] row of scores made weights: LibTorch's softmax, or the fused one.
at::Tensor softmaxOf(at::Tensor scores, int64_t rows, int64_t Sk, AttentionSoftmax softmax) {
  if (softmax == AttentionSoftmax::Torch) return at::softmax(scores, -1);
  float* p = scores.data_ptr<float>();
  for (int64_t r = 0; r < rows; ++r) softmaxInPlace(p + r * Sk, Sk);
  return scores;
}

}  // namespace

bool canWeightValues(const at::Tensor& weights, const at::Tensor& values) {
  if (c10::GradMode::is_enabled()) return false;
  for (const auto* t : {&weights, &values})
    if (!t->device().is_cpu() || t->scalar_type() != at::kFloat || t->layout() != at::kStrided) return false;
  return weights.dim() == 2 && values.dim() == 3 && values.size(0) == weights.size(0) &&
         values.size(1) == weights.size(1) && values.stride(2) == 1;
}

at::Tensor weightedValues(const at::Tensor& weights, const at::Tensor& values) {
  const int64_t B = values.size(0), S = values.size(1), D = values.size(2);
  const auto w = weights.contiguous();
  auto context = at::empty({B, D}, values.options());
  const float* wp = w.data_ptr<float>();
  const float* vp = values.data_ptr<float>();
  float* cp = context.data_ptr<float>();
  for (int64_t b = 0; b < B; ++b) headContext(wp + b * S, vp + b * values.stride(0), values.stride(1), S, D, cp + b * D);
  return context;
}

bool canAttendOneQuery(const at::Tensor& q, const at::Tensor& keys, const at::Tensor& values,
                       const at::Tensor& keyRows) {
  if (c10::GradMode::is_enabled()) return false;
  for (const auto* t : {&q, &keys, &values})
    if (!t->device().is_cpu() || t->dim() != 4 || t->stride(3) != 1 || t->layout() != at::kStrided) return false;
  const auto kind = keys.scalar_type();
  if (q.scalar_type() != at::kFloat || (kind != at::kFloat && kind != at::kBFloat16) || values.scalar_type() != kind)
    return false;
  if (keyRows.defined() && (!keyRows.device().is_cpu() || keyRows.dim() != 1 || keyRows.size(0) != q.size(0)))
    return false;
  return q.size(2) == 1 && keys.sizes() == values.sizes() && (keyRows.defined() || q.size(0) == keys.size(0)) &&
         q.size(1) == keys.size(1) && q.size(3) == keys.size(3);
}

OneQueryAttention attendOneQuery(const at::Tensor& q, const at::Tensor& keys, const at::Tensor& values,
                                 const at::Tensor& keyMask, const at::Tensor& keyRows, AttentionSoftmax softmax) {
  const int64_t B = q.size(0), H = keys.size(1), Sk = keys.size(2), dk = keys.size(3);
  const float scale = static_cast<float>(std::sqrt(static_cast<double>(dk)));
  const auto rowTensor = keyRows.defined() ? keyRows.to(at::kLong).contiguous() : at::Tensor();
  const int64_t* given = rowTensor.defined() ? rowTensor.data_ptr<int64_t>() : nullptr;
  for (int64_t b = 0; given && b < B; ++b)
    TORCH_CHECK(given[b] >= 0 && given[b] < keys.size(0), "attendOneQuery: key row ", given[b], " of ", keys.size(0));
  auto row = [given](int64_t b) { return given ? given[b] : b; };
  auto scores = at::empty({B, H, 1, Sk}, q.options());
  const auto mask = keyMask.defined() ? keyMask.to(at::kBool).contiguous() : at::Tensor();
  const bool* real = mask.defined() ? mask.data_ptr<bool>() : nullptr;
  const float* qp = q.data_ptr<float>();
  float* sp = scores.data_ptr<float>();
  auto context = at::empty({B, 1, H * dk}, q.options());
  float* cp = context.data_ptr<float>();
  at::Tensor weights;
  // float32 or bfloat16 keys and values (bfloat16's bits: uint16_t)
  auto attend = [&](const auto* kp, const auto* vp) {
    for (int64_t b = 0; b < B; ++b)
      for (int64_t h = 0; h < H; ++h)
        headScores(qp + b * q.stride(0) + h * q.stride(1), kp + row(b) * keys.stride(0) + h * keys.stride(1),
                   keys.stride(2), Sk, dk, real ? real + row(b) * Sk : nullptr, scale, sp + (b * H + h) * Sk);
    weights = softmaxOf(scores, B * H, Sk, softmax);
    const float* wp = weights.data_ptr<float>();
    for (int64_t b = 0; b < B; ++b)
      for (int64_t h = 0; h < H; ++h)
        headContext(wp + (b * H + h) * Sk, vp + row(b) * values.stride(0) + h * values.stride(1), values.stride(2),
                    Sk, dk, cp + (b * H + h) * dk);
  };
  if (keys.scalar_type() == at::kBFloat16)
    attend(static_cast<const uint16_t*>(keys.data_ptr()), static_cast<const uint16_t*>(values.data_ptr()));
  else
    attend(keys.data_ptr<float>(), values.data_ptr<float>());
  return {context, weights};
}

}  // namespace nmt
