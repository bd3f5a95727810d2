#include "attention/HeatmapOf.h"

#include <torch/torch.h>

namespace nmt {

Heatmap heatmapOf(const at::Tensor& weights, std::vector<std::string> rowLabels, std::vector<std::string> columnLabels) {
  Heatmap map{std::move(rowLabels), std::move(columnLabels), {}};
  const auto w = weights.to(torch::kCPU, torch::kFloat32).contiguous();
  const auto a = w.accessor<float, 2>();
  for (int64_t r = 0; r < w.size(0); ++r) map.weights.emplace_back(&a[r][0], &a[r][0] + w.size(1));
  return map;
}

}  // namespace nmt
