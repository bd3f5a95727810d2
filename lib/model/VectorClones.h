#pragma once

// A function built for AVX-512, AVX2 and the baseline, the best the CPU runs picked when the program
// loads (the build itself targets the baseline). For plain loops that should vectorize; the files
// that use it build without fused multiply-adds (lib/CMakeLists.txt), so every clone rounds alike.
#define NMT_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
