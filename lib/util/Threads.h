#pragma once

#include <string>

namespace nmt {

// Sets the CPU threads for matrix work: OpenBLAS gets `threads`, LibTorch's intra-op pool
// stays at one (the fastest split measured here; both at 2 oversubscribes two cores).
// threads 0 leaves the libraries' defaults. Returns a one-line description for the log.
std::string configureThreads(int threads);

}  // namespace nmt
