#include "util/Runtime.h"

#include "util/BlasKernels.h"
#include "util/Device.h"
#include "util/HeapReuse.h"
#include "util/Threads.h"

#include <fmt/core.h>

#include <cstdlib>

namespace nmt {

std::string Runtime::describe() const {
  return fmt::format("device {}, precision {}; {}", device.str(), precisionName(precision), describeThreads());
}

MatrixWork matrixWorkFor(bool cpuBf16, bool cpuTraining, const char* ompWaitPolicy) {
  if (cpuBf16) return MatrixWork::kOneDnn;
  return cpuTraining && idleThreadsSleep(ompWaitPolicy) ? MatrixWork::kOpenBlasSharingCores : MatrixWork::kOpenBlas;
}

std::vector<std::pair<std::string, std::string>> sleepingIdleThreadsEnvironment(const RuntimeOptions& options,
                                                                                const char* ompWaitPolicy,
                                                                                const char* openblasThreadTimeout) {
  if (ompWaitPolicy) return {};
  try {
    // only where asleep idle threads change the layout (matrixWorkFor's rule, not a copy of it)
    const c10::Device device = resolveDevice(options.device);
    const bool bf16 = cpuBf16(settlePrecision(options.precision, device, ModelUse::kTraining), device);
    if (matrixWorkFor(bf16, device.is_cpu(), "passive") != MatrixWork::kOpenBlasSharingCores) return {};
  } catch (const std::exception&) {
    return {};  // startRuntime says what is wrong
  }
  if ((options.threads > 0 ? options.threads : matrixThreads()) <= 1) return {};
  std::vector<std::pair<std::string, std::string>> variables{{"OMP_WAIT_POLICY", "passive"}};
  if (!openblasThreadTimeout) variables.emplace_back("OPENBLAS_THREAD_TIMEOUT", "4");
  return variables;
}

Runtime startRuntime(const RuntimeOptions& options, ModelUse use) {
  Runtime r;
  r.device = resolveDevice(options.device);
  r.precision = settlePrecision(options.precision, r.device, use);
  reuseFreedMemory();
  const bool bf16 = cpuBf16(r.precision, r.device);
  if (bf16) cacheTensorBlocks();
  const bool cpuTraining = use == ModelUse::kTraining && r.device.is_cpu();
  const MatrixWork work = matrixWorkFor(bf16, cpuTraining, std::getenv("OMP_WAIT_POLICY"));
  r.threadInfo = configureThreads(options.threads, work);
  if (work == MatrixWork::kOpenBlasSharingCores) r.threadInfo += "; idle threads sleep (OMP_WAIT_POLICY=passive)";
  const MatrixKernels kernels = currentMatrixKernels();
  r.kernelLine = bf16 ? "matrix products in bf16: oneDNN (" + cpuBf16Instructions() + "), the rest " +
                            describeMatrixKernels(kernels)
                      : describeMatrixKernels(kernels);
  r.kernelHint = kernelHint(kernels, detectCpuFeatures());
  return r;
}

}  // namespace nmt
