#pragma once

#include <string>

namespace nmt {

// Which library does most of the matrix work, and so the size of LibTorch's intra-op pool:
// kOpenBlas: OpenBLAS (fp32 sgemm), LibTorch's pool at one thread;
// kOneDnn: oneDNN on LibTorch's intra-op threads (bf16 training on the CPU), the pool at OpenBLAS's count;
// kOpenBlasSharingCores: OpenBLAS's products, and LibTorch's element-wise work at OpenBLAS's count
// between them (float32 training where idle threads sleep: 7-9% more tokens/s on 2 cores, 1.7x slower
// where they spin; docs/performance.md).
enum class MatrixWork { kOpenBlas, kOneDnn, kOpenBlasSharingCores };

// Whether libgomp's idle threads sleep rather than spin: OMP_WAIT_POLICY (the value this process
// started with; libgomp reads it once, at load) is "passive", in any case.
bool idleThreadsSleep(const char* ompWaitPolicy);

// Sets the CPU threads for matrix work: OpenBLAS gets `threads`, LibTorch's intra-op pool
// stays at one (the fastest split measured: both at 2 oversubscribes two cores, and Debian 13's
// LibTorch starts 2 OpenMP threads beside OpenBLAS's 2 by default; docs/performance.md, "Thread layouts").
// threads 0 keeps OpenBLAS's own count (its cores, or OPENBLAS_NUM_THREADS) and still puts
// LibTorch at one; with another BLAS, LibTorch keeps its default. With kOneDnn and kOpenBlasSharingCores
// LibTorch's pool gets OpenBLAS's count too (bf16 training ran at 5,800 tokens/s on one intra-op thread, 7,700 on 2).
// Returns a line for the log.
std::string configureThreads(int threads, MatrixWork work = MatrixWork::kOpenBlas);
// "threads: LibTorch intra-op 1, OpenBLAS threads 2", as they are now (another caller may have set them since).
std::string describeThreads();

// The threads matrix work gets before configureThreads changes them: OpenBLAS's count (its
// cores, or OPENBLAS_NUM_THREADS), else LibTorch's intra-op count.
int matrixThreads();

// OpenBLAS's thread count; 0 when the BLAS is not OpenBLAS.
int openBlasThreads();

// While alive, OpenBLAS runs each call on its calling thread alone (its count restored after):
// for several threads that each run matrix products of their own at once. Changes nothing when
// the BLAS is not OpenBLAS. The count is process-wide: one at a time, from one thread.
class SingleThreadedBlas {
 public:
  SingleThreadedBlas();
  ~SingleThreadedBlas();
  SingleThreadedBlas(const SingleThreadedBlas&) = delete;
  SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;

 private:
  int saved_;
};

}  // namespace nmt
