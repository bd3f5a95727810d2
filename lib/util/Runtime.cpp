#include "util/Runtime.h"

#include "util/BlasKernels.h"
#include "util/Device.h"
#include "util/HeapReuse.h"
#include "util/Threads.h"

#include <fmt/core.h>

namespace nmt {

std::string Runtime::describe() const {
  return fmt::format("device {}, precision {}; {}", device.str(), precisionName(precision), describeThreads());
}

Runtime startRuntime(const RuntimeOptions& options, ModelUse use) {
  Runtime r;
  r.device = resolveDevice(options.device);
  r.precision = settlePrecision(options.precision, r.device, use);
  reuseFreedMemory();
  const bool bf16 = cpuBf16(r.precision, r.device);
  r.threadInfo = configureThreads(options.threads, bf16 ? MatrixWork::kOneDnn : MatrixWork::kOpenBlas);
  const MatrixKernels kernels = currentMatrixKernels();
  r.kernelLine = bf16 ? "matrix products in bf16: oneDNN (" + cpuBf16Instructions() + "), the rest " +
                            describeMatrixKernels(kernels)
                      : describeMatrixKernels(kernels);
  r.kernelHint = kernelHint(kernels, detectCpuFeatures());
  return r;
}

}  // namespace nmt
