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

}  // namespace nmt
