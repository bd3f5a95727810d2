#pragma once

#include <string>

namespace nmt {

// Sets the CPU threads for matrix work: OpenBLAS gets `threads`, LibTorch's intra-op pool
// stays at one (the fastest split measured here; both at 2 oversubscribes two cores: Debian
// 13's LibTorch starts 2 OpenMP threads beside OpenBLAS's 2 by default and trained 17x slower).
// threads 0 keeps OpenBLAS's own count (its cores, or OPENBLAS_NUM_THREADS) and still puts
// LibTorch at one; with another BLAS, LibTorch keeps its default. Returns a line for the log.
std::string configureThreads(int threads);

// The threads matrix work gets before configureThreads changes them: OpenBLAS's count (its
// cores, or OPENBLAS_NUM_THREADS), else LibTorch's intra-op count.
int matrixThreads();

}  // namespace nmt
