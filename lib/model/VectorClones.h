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

// The sum of the eight lanes, in one fixed order.
inline float laneSum(const Floats8& v) { return ((v[0] + v[4]) + (v[1] + v[5])) + ((v[2] + v[6]) + (v[3] + v[7])); }

}  // namespace nmt
