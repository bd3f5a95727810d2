#pragma once

#include <cstdint>
#include <cstring>

// A function built for AVX-512, AVX2 and the baseline, the best the CPU runs picked when the program
// loads (the build itself targets the baseline). For plain loops that should vectorize; the files
// that use it build without fused multiply-adds (lib/CMakeLists.txt), so every clone rounds alike.
#define NMT_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

namespace nmt {

// Eight floats, which each clone keeps in its own registers (two SSE registers on the baseline): for
// reductions, whose float sums the compiler may not reorder by itself.
typedef float Floats8 __attribute__((vector_size(32)));
typedef int32_t Ints8 __attribute__((vector_size(32)));

// Eight floats at p, which need not be aligned. (Through a reference, not returned: a 32-byte vector
// returned by a baseline function changes the ABI.)
inline void load8(Floats8& v, const float* p) { std::memcpy(&v, p, sizeof v); }
inline void store8(float* p, const Floats8& v) { std::memcpy(p, &v, sizeof v); }

// Eight bfloat16s at p (their bits: a float's upper half), each made the float it stands for exactly.
typedef uint16_t Halves8 __attribute__((vector_size(16)));
inline void load8(Floats8& v, const uint16_t* p) {
  Halves8 halves;
  std::memcpy(&halves, p, sizeof halves);
  const Ints8 bits = __builtin_convertvector(halves, Ints8) << 16;
  std::memcpy(&v, &bits, sizeof v);
}

// Sixteen floats at p as elements 0-7 and 8-15; for bfloat16s (their bits) one load and shuffles that
// put each beside zeros (eight loads and conversions above took twice the instructions).
typedef uint16_t Halves16 __attribute__((vector_size(32)));
inline void load16(Floats8& low, Floats8& high, const float* p) {
  load8(low, p);
  load8(high, p + 8);
}
inline void load16(Floats8& low, Floats8& high, const uint16_t* p) {
  Halves16 halves;
  std::memcpy(&halves, p, sizeof halves);
  const Halves16 zero = {};
  const Halves16 a = __builtin_shufflevector(zero, halves, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const Halves16 b = __builtin_shufflevector(zero, halves, 0, 24, 1, 25, 2, 26, 3, 27, 4, 28, 5, 29, 6, 30, 7, 31);
  std::memcpy(&low, &a, sizeof low);
  std::memcpy(&high, &b, sizeof high);
}
// A float as a bfloat16's bits, rounded to the nearest even as c10::BFloat16 (a NaN made by arithmetic stays
// one: its quiet bit lies in the upper half).
inline uint16_t bfloat16Of(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}
// Eight floats at p as bfloat16s, each rounded as bfloat16Of.
typedef uint32_t Uints8 __attribute__((vector_size(32)));
inline void store8(uint16_t* p, const Floats8& v) {
  Uints8 bits;
  std::memcpy(&bits, &v, sizeof bits);
  const Uints8 rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
  const Halves8 halves = __builtin_convertvector(rounded, Halves8);
  std::memcpy(p, &halves, sizeof halves);
}

// One float, or the float a bfloat16's bits stand for.
inline float floatOf(float x) { return x; }
inline float floatOf(uint16_t bfloat16) {
  const uint32_t bits = static_cast<uint32_t>(bfloat16) << 16;
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

// The sum of the eight lanes, in one fixed order.
inline float laneSum(const Floats8& v) { return ((v[0] + v[4]) + (v[1] + v[5])) + ((v[2] + v[6]) + (v[3] + v[7])); }
// laneSum of four vectors at once, each in laneSum's order (its additions as shuffled vectors).
typedef float Floats4 __attribute__((vector_size(16)));
inline void laneSums(const Floats8& a, const Floats8& b, const Floats8& c, const Floats8& d, float* sums) {
  // v[k] + v[k + 4] for k < 4: a's and b's side by side, then c's and d's
  const Floats8 ab = __builtin_shufflevector(a, b, 0, 1, 2, 3, 8, 9, 10, 11) + __builtin_shufflevector(a, b, 4, 5, 6, 7, 12, 13, 14, 15);
  const Floats8 cd = __builtin_shufflevector(c, d, 0, 1, 2, 3, 8, 9, 10, 11) + __builtin_shufflevector(c, d, 4, 5, 6, 7, 12, 13, 14, 15);
  // (0 + 1) and (2 + 3) of each
  const Floats8 pairs = __builtin_shufflevector(ab, cd, 0, 2, 4, 6, 8, 10, 12, 14) + __builtin_shufflevector(ab, cd, 1, 3, 5, 7, 9, 11, 13, 15);
  const Floats4 total = __builtin_shufflevector(pairs, pairs, 0, 2, 4, 6) + __builtin_shufflevector(pairs, pairs, 1, 3, 5, 7);
  std::memcpy(sums, &total, sizeof total);
}

// e^x for x <= 0 (x - the row's largest score), 0 below -87 (-inf too: masked positions weigh exactly
// nothing): e^x = 2^n e^r, n = x / ln 2 rounded, r = x - n ln 2 (ln 2 in two parts) in [-ln 2 / 2,
// ln 2 / 2], where a degree-6 polynomial (Cephes' expf) is within 2 units in the last place.
// (In place, not returned: see load8.)
inline void expOfNonPositive(Floats8& x) {
  const Floats8 tiny = x < -87.0f ? Floats8{} + 1.0f : Floats8{};  // lanes that become 0
  x = x < -87.0f ? Floats8{} - 87.0f : x;
  const float magic = 12582912.0f;  // 1.5 x 2^23: adding and taking it away rounds to an integer
  const Floats8 n = (x * 1.44269504088896341f + magic) - magic;
  const Floats8 r = (x - n * 0.693359375f) - n * -2.12194440e-4f;
  Floats8 p = r * 1.9875691500e-4f + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  const Ints8 bits = (__builtin_convertvector(n, Ints8) + 127) << 23;
  Floats8 scale;
  std::memcpy(&scale, &bits, sizeof scale);
  const Floats8 e = p * scale;
  x = tiny > 0.0f ? Floats8{} : e;
}

}  // namespace nmt
