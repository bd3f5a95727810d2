#pragma once

#include <torch/torch.h>

#include <vector>

namespace nmt {

// Scales the gradients so that their joint L2 norm is at most maxNorm (maxNorm <= 0: leaves them)
// and returns that norm before scaling, as a 0-dim tensor on the gradients' device. Unlike
// LibTorch 1.13's clip_grad_norm_, which returns a double, it never waits for the GPU: the
// training step reads the norm together with the loss in one transfer. A non-finite norm makes
// the gradients non-finite too; the caller skips such a step.
torch::Tensor clipGradientNorm(const std::vector<torch::Tensor>& parameters, double maxNorm);

}  // namespace nmt
