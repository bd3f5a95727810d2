#include "util/BlasKernels.h"

#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <string>

using namespace nmt;

namespace {

std::string procFile(const char* path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The path of the OpenBLAS library mapped into this process ("libopenblas*" in /proc/self/maps), or "".
std::string mappedOpenBlas() {
  const std::string maps = procFile("/proc/self/maps");
  const auto at = maps.find("/libopenblas");
  if (at == std::string::npos) return "";
  const auto begin = maps.rfind(' ', at) + 1;
  return maps.substr(begin, maps.find('\n', at) - begin);
}

// Flag sets of real CPUs (cpuid, as /proc/cpuinfo lists them).
const CpuFeatures kXeonSkylakeSP{true, true, true, true};    // Xeon Gold 6148, Platinum 8375C (Ice Lake)
const CpuFeatures kEpycZen4{true, true, true, true};         // EPYC 9654 (AVX-512 since Zen 4)
const CpuFeatures kEpycZen2{true, true, true, false};        // EPYC 7B12, Ryzen 3700X
const CpuFeatures kXeonHaswell{true, true, true, false};     // Xeon E5-2673 v3
const CpuFeatures kXeonIvyBridge{true, false, false, false}; // Xeon E5-2670 v2: AVX, no AVX2/FMA
const CpuFeatures kCore2{false, false, false, false};        // Core 2 Duo, QEMU's default "qemu64"

}  // namespace

TEST_CASE("the strongest OpenBLAS kernel family follows the CPU's instruction sets") {
  CHECK(strongestKernelFamily(kXeonSkylakeSP) == "SkylakeX");
  CHECK(strongestKernelFamily(kEpycZen4) == "SkylakeX");
  CHECK(strongestKernelFamily(kEpycZen2) == "Haswell");
  CHECK(strongestKernelFamily(kXeonHaswell) == "Haswell");
  CHECK(strongestKernelFamily(kXeonIvyBridge) == "Sandybridge");
  CHECK(strongestKernelFamily(kCore2) == "");
  // AVX-512 without FMA/AVX2 reported (a hypervisor masking flags): not SkylakeX
  CHECK(strongestKernelFamily({true, false, false, true}) == "Sandybridge");
}

TEST_CASE("a kernel set is weaker only when both names are known and its family is older") {
  CHECK(isWeakerKernelSet("Prescott", "SkylakeX"));  // the Xeon VM that ran 2-5x slower
  CHECK(isWeakerKernelSet("Haswell", "SkylakeX"));
  CHECK(isWeakerKernelSet("SANDYBRIDGE", "Haswell"));  // OpenBLAS's case varies by version
  CHECK_FALSE(isWeakerKernelSet("Zen", "Haswell"));      // same family
  CHECK_FALSE(isWeakerKernelSet("Cooperlake", "SkylakeX"));
  CHECK_FALSE(isWeakerKernelSet("SkylakeX", "Haswell"));
  CHECK_FALSE(isWeakerKernelSet("NeoverseN1", "Haswell"));  // unknown: never called weaker
  CHECK_FALSE(isWeakerKernelSet("Haswell", ""));
}

TEST_CASE("the kernel line names the library, the set and the threads; the hint names OPENBLAS_CORETYPE") {
  MatrixKernels prescott{"OpenBLAS 0.3.21", "Prescott", 2};
  CHECK(describeMatrixKernels(prescott) == "matrix kernels: OpenBLAS 0.3.21, Prescott, 2 threads");
  CHECK(describeMatrixKernels({"OpenBLAS 0.3.29", "Haswell", 1}) == "matrix kernels: OpenBLAS 0.3.29, Haswell, 1 thread");
  CHECK(describeMatrixKernels({"not OpenBLAS (LibTorch's own or another BLAS)", "", 0}) ==
        "matrix kernels: not OpenBLAS (LibTorch's own or another BLAS)");
  const std::string hint = kernelHint(prescott, kXeonSkylakeSP);
  CHECK(hint.find("hint: OpenBLAS runs its Prescott kernels, but this CPU allows SkylakeX") == 0);
  CHECK(hint.find("(OPENBLAS_CORETYPE=SkylakeX nmt-bench-model --kernels) before using it") != std::string::npos);
  CHECK(kernelHint({"OpenBLAS 0.3.21", "SkylakeX", 2}, kXeonSkylakeSP).empty());
  CHECK(kernelHint({"OpenBLAS 0.3.21", "Haswell", 2}, kEpycZen2).empty());
  CHECK(kernelHint({"OpenBLAS 0.3.21", "Prescott", 2}, kCore2).empty());
}

TEST_CASE("this machine: the CPU is named as /proc/cpuinfo names it") {
  const std::string cpuinfo = procFile("/proc/cpuinfo");
  REQUIRE_FALSE(cpuinfo.empty());
  const std::string name = cpuModelName();
  MESSAGE(name);
  if (cpuinfo.rfind("model name", 0) == 0 || cpuinfo.find("\nmodel name") != std::string::npos) {
    CHECK(name != "unknown CPU");
    CHECK_FALSE(name.empty());
    CHECK(cpuinfo.find("model name\t: " + name + "\n") != std::string::npos);
  } else {
    CHECK(name == "unknown CPU");  // (ARM's cpuinfo names no model)
  }
}

// Where OpenBLAS is loaded (LibTorch's BLAS in nmt_model_tests) its version, kernel set and threads
// are checked in test_train.cpp; this process links no BLAS.
TEST_CASE("this machine: a process without OpenBLAS reports another BLAS, no kernel set and no threads") {
  REQUIRE_MESSAGE(mappedOpenBlas().empty(), "nmt_text_tests links no BLAS, yet maps " << mappedOpenBlas());
  const auto kernels = currentMatrixKernels();
  CHECK(kernels.library == "not OpenBLAS (LibTorch's own or another BLAS)");
  CHECK(kernels.coreName.empty());
  CHECK(kernels.threads == 0);
  CHECK(kernelHint(kernels, detectCpuFeatures()).empty());
}
