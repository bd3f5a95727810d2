#pragma once

namespace torch::optim {
class Adam;
}

namespace nmt {

// torch::optim::Adam's step (its formula: moments decayed, sqrt(v) / sqrt(1 - beta2^t) + eps, the step
// lr / (1 - beta1^t)) in one pass over each float32 CPU parameter's weights, gradient and moments, on
// LibTorch's intra-op threads; LibTorch's step went over them eight times and allocated two temporaries.
// The state stays the optimizer's own (AdamParamState, created as LibTorch creates it), so checkpoints,
// resuming and LibTorch's own step see no difference. Any other parameter, amsgrad or weight decay:
// LibTorch's step for everything.
void adamStep(torch::optim::Adam& adam);

}  // namespace nmt
