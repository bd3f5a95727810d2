#include "train/GradientAccumulation.h"

#include "tokenization/SpecialIds.h"
#include "train/LabelSmoothedLoss.h"

#include <torch/torch.h>

namespace nmt {

int64_t goldTokens(const Batch& batch) {
  return static_cast<int64_t>(batch.targetTokens) - static_cast<int64_t>(batch.size());
}

void forgetGradients(const std::vector<at::Tensor>& parameters) {
  for (auto p : parameters) p.mutable_grad().reset();
}

AccumulatedLoss accumulateGradients(Seq2Seq& model, const std::vector<Batch>& batches, const LossSettings& settings,
                                    const c10::Device& device) {
  AccumulatedLoss out;
  for (const auto& batch : batches) out.tokens += goldTokens(batch);
  for (const auto& batch : batches) {
    LossTerms terms;
    {
      const AutocastScope autocast(device, settings.precision);
      const auto decoded = model->forward(batch, settings.teacherForcing);
      terms = labelSmoothedLoss(decoded.logits, batch.gold(), settings.labelSmoothing,
                                SpecialIds::kPad, goldTokens(batch));
    }
    const auto loss = terms.loss / static_cast<double>(out.tokens);
    (settings.lossScale == 1.0 ? loss : loss * settings.lossScale).backward();
    const auto sum = terms.loss.detach();
    out.lossSum = out.lossSum.defined() ? out.lossSum + sum : sum;
  }
  if (settings.lossScale != 1.0) {
    torch::NoGradGuard noGrad;
    for (auto& p : model->parameters())
      if (p.grad().defined()) p.grad().mul_(1.0 / settings.lossScale);
  }
  return out;
}

}  // namespace nmt
