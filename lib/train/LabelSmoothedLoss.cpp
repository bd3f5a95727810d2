#include "train/LabelSmoothedLoss.h"

#include <torch/torch.h>

namespace nmt {

LossTerms labelSmoothedLoss(const at::Tensor& logProbs, const at::Tensor& gold, double smoothing, int64_t ignoreIndex,
                            int64_t knownTokens) {
  const auto flat = logProbs.reshape({-1, logProbs.size(-1)});
  const auto target = gold.reshape(-1);
  const auto real = target.ne(ignoreIndex);
  const auto nllPerToken = -flat.gather(1, target.clamp_min(0).unsqueeze(1)).squeeze(1);
  LossTerms terms;
  terms.nll = nllPerToken.masked_fill(~real, 0.0).sum();
  if (smoothing > 0.0) {
    const auto uniformPerToken = -flat.mean(1);
    terms.loss = ((1.0 - smoothing) * nllPerToken + smoothing * uniformPerToken).masked_fill(~real, 0.0).sum();
  } else {
    terms.loss = terms.nll;
  }
  terms.tokens = knownTokens >= 0 ? knownTokens : real.sum().item<int64_t>();
  return terms;
}

}  // namespace nmt
