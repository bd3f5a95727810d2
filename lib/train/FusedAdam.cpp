#include "train/FusedAdam.h"

#include "kernels/VectorClones.h"
#include "util/TorchCompat.h"

#include <ATen/Parallel.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/optim/adam.h>
#include <torch/torch.h>

#include <cmath>

namespace nmt {
namespace {

struct AdamScalars {
  float beta1, oneMinusBeta1, beta2, oneMinusBeta2;
  float rootBias2;  // sqrt(1 - beta2^t)
  float eps, stepSize;
};

// LibTorch's passes, one element at a time: exp_avg.mul_(b1).add_(g, 1 - b1);
// exp_avg_sq.mul_(b2).addcmul_(g, g, 1 - b2); denom = sqrt(exp_avg_sq) / sqrt(bias2) + eps;
// p.addcdiv_(exp_avg, denom, -stepSize). (This file builds without fused multiply-adds and with sqrt
// free of errno, so that the loop vectorizes and every clone rounds alike.)
NMT_VECTOR_CLONES
void adamElements(float* p, const float* g, float* m, float* v, int64_t begin, int64_t end, AdamScalars s) {
  for (int64_t i = begin; i < end; ++i) {
    const float grad = g[i];
    const float mean = m[i] * s.beta1 + s.oneMinusBeta1 * grad;
    const float square = v[i] * s.beta2 + s.oneMinusBeta2 * grad * grad;
    m[i] = mean;
    v[i] = square;
    p[i] = p[i] + -s.stepSize * (mean / (std::sqrt(square) / s.rootBias2 + s.eps));
  }
}

bool fusable(const torch::Tensor& t) {
  return t.defined() && t.device().is_cpu() && t.scalar_type() == at::kFloat && t.is_contiguous() && !t.is_sparse();
}

// Every parameter with a gradient, its gradient and its moments (where it has them yet) float32 on
// the CPU; no amsgrad, no weight decay.
bool allFusable(torch::optim::Adam& adam) {
  for (const auto& group : adam.param_groups()) {
    const auto& options = static_cast<const torch::optim::AdamOptions&>(group.options());
    if (options.amsgrad() || options.weight_decay() != 0.0) return false;
    for (const auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      if (!fusable(p) || p.grad().is_sparse() || p.grad().scalar_type() != at::kFloat) return false;
      const auto found = adam.state().find(compat::optimizerStateKey(adam, p));
      if (found == adam.state().end()) continue;
      const auto* state = dynamic_cast<const torch::optim::AdamParamState*>(found->second.get());
      if (!state || !fusable(state->exp_avg()) || !fusable(state->exp_avg_sq()) ||
          state->exp_avg().numel() != p.numel() || state->exp_avg_sq().numel() != p.numel())
        return false;
    }
  }
  return true;
}

}  // namespace

void adamStep(torch::optim::Adam& adam) {
  if (!allFusable(adam)) return void(adam.step());
  torch::NoGradGuard noGrad;
  auto& states = adam.state();
  for (auto& group : adam.param_groups()) {
    const auto& options = static_cast<const torch::optim::AdamOptions&>(group.options());
    const auto [beta1, beta2] = options.betas();
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      const auto key = compat::optimizerStateKey(adam, p);
      auto found = states.find(key);
      if (found == states.end()) {  // as LibTorch's first step makes it
        auto fresh = std::make_unique<torch::optim::AdamParamState>();
        fresh->step(0);
        fresh->exp_avg(torch::zeros_like(p, torch::MemoryFormat::Preserve));
        fresh->exp_avg_sq(torch::zeros_like(p, torch::MemoryFormat::Preserve));
        found = states.emplace(key, std::move(fresh)).first;
      }
      auto& state = static_cast<torch::optim::AdamParamState&>(*found->second);
      state.step(state.step() + 1);
      const double bias1 = 1.0 - std::pow(beta1, static_cast<double>(state.step()));
      const double bias2 = 1.0 - std::pow(beta2, static_cast<double>(state.step()));
      const AdamScalars s{static_cast<float>(beta1),
                          static_cast<float>(1.0 - beta1),
                          static_cast<float>(beta2),
                          static_cast<float>(1.0 - beta2),
                          static_cast<float>(std::sqrt(bias2)),
                          static_cast<float>(options.eps()),
                          static_cast<float>(options.lr() / bias1)};
      const auto grad = p.grad().contiguous();
      float* weights = p.data_ptr<float>();
      const float* g = grad.data_ptr<float>();
      float* m = state.exp_avg().data_ptr<float>();
      float* v = state.exp_avg_sq().data_ptr<float>();
      at::parallel_for(0, p.numel(), 1 << 15,
                       [&](int64_t begin, int64_t end) { adamElements(weights, g, m, v, begin, end, s); });
      // written through their pointers: the version counters say so, as an in-place operator's would (what
      // was made from the weights before, such as translation's packed copies, must not be taken for them)
      for (const auto& written : {p, state.exp_avg(), state.exp_avg_sq()}) torch::autograd::impl::bump_version(written);
    }
  }
}

}  // namespace nmt
