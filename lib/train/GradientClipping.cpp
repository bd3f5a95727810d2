#include "train/GradientClipping.h"

namespace nmt {

torch::Tensor clipGradientNorm(const std::vector<torch::Tensor>& parameters, double maxNorm) {
  torch::NoGradGuard noGrad;
  std::vector<torch::Tensor> norms, grads;
  for (const auto& p : parameters)
    if (p.grad().defined()) {
      grads.push_back(p.grad());
      norms.push_back(p.grad().norm(2).to(torch::kFloat));
    }
  if (grads.empty()) return torch::zeros({});
  const auto total = torch::stack(norms).norm(2);
  if (maxNorm > 0.0) {
    const auto scale = (maxNorm / (total + 1e-6)).clamp_max(1.0);
    for (auto& g : grads) g.mul_(scale.to(g.scalar_type()));
  }
  return total;
}

}  // namespace nmt
