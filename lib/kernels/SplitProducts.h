#pragma once

#include <functional>

namespace nmt {

// While alive, on the thread that made it, inferenceLinear's large float32 products of few rows run in
// two halves of the weight's rows, each packed once, the second half on a helper thread: a lone
// sentence's products on two cores at packed speed, where the choice was one thread packed or two
// unpacked (docs/performance.md, "One sentence at a time"). For a call that decodes one small batch
// with OpenBLAS single-threaded (SingleThreadedBlas) and a second core free.
class SplitProducts {
 public:
  SplitProducts();
  ~SplitProducts();
  SplitProducts(const SplitProducts&) = delete;
  SplitProducts& operator=(const SplitProducts&) = delete;

 private:
  bool saved_;
};

// Whether this thread's products are split (a SplitProducts is alive on it).
bool splittingProducts();

// Runs `first` here and `second` on the helper thread (started at the first call, kept), and returns
// when both are done; rethrows what either threw (first's first).
void runInTwo(const std::function<void()>& first, const std::function<void()>& second);

}  // namespace nmt
