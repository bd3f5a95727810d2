#pragma once

#include "util/Threads.h"

#include <ATen/Parallel.h>

#include <string>

// The programs' thread layout (configureThreads: OpenBLAS at `threads`, LibTorch's pool at 1) or, to
// measure the alternatives the programs do not offer, LibTorch's intra-op pool at `intraOp` beside it.
inline std::string configureBenchThreads(int threads, int intraOp, nmt::MatrixWork work = nmt::MatrixWork::kOpenBlas) {
  const std::string line = nmt::configureThreads(threads, work);
  if (intraOp == 1) return line;
  at::set_num_threads(intraOp);
  return line + ", then LibTorch intra-op " + std::to_string(at::get_num_threads()) + " (--intra-op)";
}
