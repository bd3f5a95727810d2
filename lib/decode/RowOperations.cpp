#include "decode/RowOperations.h"

#include "decode/RowTopK.h"

namespace nmt {

std::pair<at::Tensor, at::Tensor> bestOfEachRow(const at::Tensor& logProbs) {
  if (!logProbs.device().is_cpu() || logProbs.scalar_type() != at::kFloat || logProbs.dim() != 2) {
    auto [values, places] = logProbs.max(-1);  // (rowTopK would hand these to at::topk, whose ties fall either way)
    return {values, places};
  }
  auto [values, places] = rowTopK(logProbs, 1);
  return {values.squeeze(1), places.squeeze(1)};
}

std::vector<std::size_t> holesFilledFromTheEnd(const std::vector<bool>& goesOn) {
  std::vector<std::size_t> order;
  std::size_t end = goesOn.size();
  for (std::size_t a = 0; a < end; ++a) {
    if (goesOn[a]) {
      order.push_back(a);
      continue;
    }
    while (end > a + 1 && !goesOn[end - 1]) --end;
    if (end > a + 1) order.push_back(--end);
  }
  return order;
}

}  // namespace nmt
