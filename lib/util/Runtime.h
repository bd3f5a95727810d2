#pragma once

#include "util/Precision.h"
#include "util/Threads.h"

#include <c10/core/Device.h>

#include <string>
#include <utility>
#include <vector>

namespace nmt {

// What a program is asked to run on (--device, --threads, --precision), as written in options
// and config files.
struct RuntimeOptions {
  std::string device = "auto";     // auto, cpu, cuda or cuda:N
  int threads = 0;                 // OpenBLAS threads (0: OpenBLAS's default)
  std::string precision = "fp32";  // fp32, bf16, fp16 or auto (settlePrecision)
};

// What it runs on, settled once at start-up.
struct Runtime {
  c10::Device device{c10::kCPU};
  Precision precision = Precision::kFp32;
  std::string threadInfo;  // configureThreads' line
  std::string kernelLine;  // the matrix kernels OpenBLAS picked (describeMatrixKernels)
  std::string kernelHint;  // advice when those kernels are slower than the CPU allows; empty when none

  // "device cpu, precision fp32; threads: ...", the threads as they are now (describeThreads)
  std::string describe() const;
};

// The start-up sequence every program that runs a model goes through, in this order: resolve
// the device, settle the precision for the device and `use`, keep freed memory for reuse, set the
// CPU threads (configureThreads; bf16 on the CPU gives them to LibTorch's pool, where oneDNN runs).
// InputError naming the option when a value is wrong.
Runtime startRuntime(const RuntimeOptions& options, ModelUse use);

// Which matrix work sizes the threads (configureThreads): kOneDnn for bf16 on the CPU; for float32
// training on the CPU kOpenBlasSharingCores where idle threads sleep (idleThreadsSleep(ompWaitPolicy)),
// else, and for translation, kOpenBlas.
MatrixWork matrixWorkFor(bool cpuBf16, bool cpuTraining, const char* ompWaitPolicy);

// The variables float32 training on the CPU restarts itself with so that its idle threads sleep
// (libgomp and OpenBLAS read them only at load), and matrixWorkFor gives LibTorch's pool both
// cores: OMP_WAIT_POLICY=passive, and OPENBLAS_THREAD_TIMEOUT=4 unless set (7-9% more tokens/s on
// 2 cores; docs/performance.md). Empty, so no restart, where OMP_WAIT_POLICY is set (the user's
// choice stands), where training is not float32 on the CPU (bf16, a GPU, a value startRuntime
// will refuse), or where the matrix work has one thread.
std::vector<std::pair<std::string, std::string>> sleepingIdleThreadsEnvironment(const RuntimeOptions& options,
                                                                                const char* ompWaitPolicy,
                                                                                const char* openblasThreadTimeout);

}  // namespace nmt
