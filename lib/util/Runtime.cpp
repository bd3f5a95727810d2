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

Runtime startRuntime(const RuntimeOptions& options) {
  Runtime r;
  r.device = resolveDevice(options.device);
  r.precision = parsePrecision(options.precision);
  checkPrecisionDevice(r.precision, r.device);
  reuseFreedMemory();
  r.threadInfo = configureThreads(options.threads);
  const MatrixKernels kernels = currentMatrixKernels();
  r.kernelLine = describeMatrixKernels(kernels);
  r.kernelHint = kernelHint(kernels, detectCpuFeatures());
  return r;
}

}  // namespace nmt
