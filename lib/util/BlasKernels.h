#pragma once

#include <string>
#include <utility>

namespace nmt {

// Which matrix kernels run. Most of a training step is sgemm, and OpenBLAS picks its kernel set
// for the CPU at load time, sometimes an old one (Prescott on an AVX-512 Xeon VM ran 2-5x
// slower). The toolkit never overrides that choice (OPENBLAS_CORETYPE is the user's; older
// OpenBLAS builds compute wrong results on some new CPUs): it only makes it visible.

// The instruction sets that decide which OpenBLAS kernel family a CPU could run.
struct CpuFeatures {
  bool avx = false;
  bool avx2 = false;
  bool fma = false;
  bool avx512f = false;
  bool avx512vnni = false;  // int8 products add u8 x s8 pairs in 32 bits (Int8Linear.h)
  bool avx512bf16 = false;  // bf16 products in hardware (oneDNN's bf16 kernels; Precision.h)
  bool amxbf16 = false;
};

// This CPU's features (cpuid).
CpuFeatures detectCpuFeatures();

// oneDNN's own limit on the instructions it uses: the variable set (ONEDNN_MAX_CPU_ISA, else
// DNNL_MAX_CPU_ISA) and its value; {"", nullptr} when neither is set.
std::pair<std::string, const char*> oneDnnIsaLimit();
// Whether oneDNN may use the instruction set `isa` (its names from AVX512_CORE_VNNI up: AVX512_CORE_VNNI,
// AVX512_CORE_BF16, AVX512_CORE_FP16, AVX512_CORE_AMX) under the limit `limit` (any case; null, empty,
// ALL or DEFAULT: no limit; a name below AVX512_CORE_VNNI allows none of them).
bool oneDnnIsaAllows(const char* limit, const std::string& isa);
// "model name" of /proc/cpuinfo, or "unknown CPU".
std::string cpuModelName();

// The strongest OpenBLAS x86-64 kernel family the features allow: "SkylakeX" (AVX-512),
// "Haswell" (AVX2 + FMA), "Sandybridge" (AVX), or "" (SSE only: nothing better than the rest).
std::string strongestKernelFamily(const CpuFeatures& features);

// Whether OpenBLAS's core name (openblas_get_corename, any case) is a weaker family than
// `family`; unknown names are never called weaker.
bool isWeakerKernelSet(const std::string& coreName, const std::string& family);

struct MatrixKernels {
  std::string library;  // "OpenBLAS 0.3.21", or what else does LibTorch's matrix work
  std::string coreName; // OpenBLAS's kernel set, e.g. "Haswell"; "" for another BLAS
  int threads = 0;      // OpenBLAS's threads; 0 when unknown
};

// Read from the BLAS loaded in this process.
MatrixKernels currentMatrixKernels();
// "matrix kernels: OpenBLAS 0.3.21, SkylakeX, 2 threads"
std::string describeMatrixKernels(const MatrixKernels& kernels);
// One line naming OPENBLAS_CORETYPE when the kernels are weaker than this CPU allows, else "".
std::string kernelHint(const MatrixKernels& kernels, const CpuFeatures& features);

}  // namespace nmt
