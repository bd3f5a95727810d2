#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace nmt {

// Runs work(i, thread) for every i < count on `threads` threads (at least one): thread t takes
// i = t, t + threads, ... Then rethrows what the lowest-numbered failing thread threw. For CPU
// work outside LibTorch's intra-op pool, which the programs keep at one thread.
template <typename Work>
void parallelFor(std::size_t count, unsigned threads, Work work) {
  threads = std::max(1u, threads);
  std::vector<std::exception_ptr> errors(threads);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      try {
        for (std::size_t i = t; i < count; i += threads) work(i, t);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  for (auto& thread : pool) thread.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace nmt
