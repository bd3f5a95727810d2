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

Runtime startRuntime(const RuntimeOptions& options, ModelUse use) {
  Runtime r;
  r.device = resolveDevice(options.device);
  r.precision = settlePrecision(options.precision, r.device, use);
  reuseFreedMemory();
  const bool bf16 = cpuBf16(r.precision, r.device);
  const bool cpuTraining = use == ModelUse::kTraining && r.device.is_cpu();
  r.threadInfo = configureThreads(options.threads, matrixWorkFor(bf16, cpuTraining, std::getenv("OMP_WAIT_POLICY")));
  const MatrixKernels kernels = currentMatrixKernels();
  r.kernelLine = bf16 ? "matrix products in bf16: oneDNN (" + cpuBf16Instructions() + "), the rest " +
                            describeMatrixKernels(kernels)
                      : describeMatrixKernels(kernels);
  r.kernelHint = kernelHint(kernels, detectCpuFeatures());
  return r;
}

}  // namespace nmt
