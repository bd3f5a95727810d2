#include "train/LabelSmoothedLoss.h"

#include "kernels/CrossEntropyRows.h"
#include "kernels/VectorClones.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <atomic>
#include <cstring>
#include <type_traits>

namespace nmt {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

constexpr int64_t kRowsPerTask = 16;

// float32 or bfloat16 rows as the kernels read them
template <typename Work>
void withRows(const at::Tensor& scores, Work&& work) {
  if (scores.scalar_type() == at::kBFloat16)
    work(reinterpret_cast<const uint16_t*>(scores.data_ptr<at::BFloat16>()));
  else
    work(scores.data_ptr<float>());
}

// loss and nll summed over the rows of logits [N, V] whose gold [N] is not ignoreIndex; saves each
// row's log-sum-exp so that backward makes the gradient in one pass.
struct FusedSmoothedLoss : torch::autograd::Function<FusedSmoothedLoss> {
  static variable_list forward(AutogradContext* ctx, const at::Tensor& logits, const at::Tensor& gold,
                               double smoothing, int64_t ignoreIndex) {
    const int64_t rows = logits.size(0), n = logits.size(1);
    const auto floats = logits.options().dtype(at::kFloat);
    auto logSumExps = at::zeros({rows}, floats), lossRows = at::zeros({rows}, floats),
         nllRows = at::zeros({rows}, floats);
    float* lse = logSumExps.data_ptr<float>();
    float* loss = lossRows.data_ptr<float>();
    float* nll = nllRows.data_ptr<float>();
    const int64_t* golds = gold.data_ptr<int64_t>();
    const auto goldWeight = static_cast<float>(1.0 - smoothing), uniformWeight = static_cast<float>(smoothing);
    std::atomic<int64_t> outOfRange{-1};
    withRows(logits, [&](const auto* scores) {
      at::parallel_for(0, rows, kRowsPerTask, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const int64_t g = golds[r];
          if (g == ignoreIndex) continue;
          if (g < 0 || g >= n) {
            outOfRange = g;
            continue;
          }
          const auto* row = scores + r * n;
          const auto s = rowLogSumExp(row, n);
          lse[r] = s.logSumExp;
          nll[r] = s.logSumExp - floatOf(row[g]);
          loss[r] = uniformWeight > 0.0f
                        ? goldWeight * nll[r] + uniformWeight * (s.logSumExp - s.sum / static_cast<float>(n))
                        : nll[r];
        }
      });
    });
    TORCH_CHECK(outOfRange.load() < 0, "gold token ", outOfRange.load(), " is outside the vocabulary of ", n);
    ctx->save_for_backward({logits});
    ctx->saved_data["gold"] = gold;
    ctx->saved_data["logSumExps"] = logSumExps;
    ctx->saved_data["smoothing"] = smoothing;
    ctx->saved_data["ignoreIndex"] = ignoreIndex;
    auto nllSum = nllRows.sum();
    ctx->mark_non_differentiable({nllSum});
    return {lossRows.sum(), nllSum};
  }

  static variable_list backward(AutogradContext* ctx, variable_list upstream) {
    const auto logits = ctx->get_saved_variables()[0];
    const auto gold = ctx->saved_data["gold"].toTensor();
    const auto logSumExps = ctx->saved_data["logSumExps"].toTensor();
    const double smoothing = ctx->saved_data["smoothing"].toDouble();
    const int64_t ignoreIndex = ctx->saved_data["ignoreIndex"].toInt();
    const int64_t rows = logits.size(0), n = logits.size(1);
    if (!upstream[0].defined()) return {at::zeros_like(logits), at::Tensor(), at::Tensor(), at::Tensor()};
    const auto scale = static_cast<float>(upstream[0].item<double>());
    const auto goldWeight = static_cast<float>(1.0 - smoothing);
    const auto uniform = static_cast<float>(smoothing / static_cast<double>(n));
    auto grad = at::empty_like(logits, at::MemoryFormat::Contiguous);
    const int64_t* golds = gold.data_ptr<int64_t>();
    const float* lse = logSumExps.data_ptr<float>();
    withRows(logits, [&](const auto* scores) {
      using Element = std::remove_const_t<std::remove_pointer_t<decltype(scores)>>;
      auto* out = static_cast<Element*>(grad.data_ptr());
      at::parallel_for(0, rows, kRowsPerTask, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          if (golds[r] == ignoreIndex)
            std::memset(out + r * n, 0, static_cast<std::size_t>(n) * sizeof(Element));
          else
            smoothedCrossEntropyGradient(scores + r * n, n, lse[r], golds[r], goldWeight, uniform, scale, out + r * n);
        }
      });
    });
    return {grad, at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

bool fusedApplies(const at::Tensor& logits) {
  return logits.device().is_cpu() && (logits.scalar_type() == at::kFloat || logits.scalar_type() == at::kBFloat16);
}

// log_softmax, then the gold's and the mean's terms: other devices and types
LossTerms composite(const at::Tensor& logits, const at::Tensor& target, const at::Tensor& real, double smoothing) {
  const auto scores = logits.element_size() < 4 ? logits.to(at::kFloat) : logits;
  const auto flat = at::log_softmax(scores, -1);
  const auto nllPerToken = -flat.gather(1, target.clamp_min(0).unsqueeze(1)).squeeze(1);
  LossTerms terms;
  terms.nll = nllPerToken.masked_fill(~real, 0.0).sum();
  if (smoothing > 0.0) {
    const auto uniformPerToken = -flat.mean(1);
    terms.loss = ((1.0 - smoothing) * nllPerToken + smoothing * uniformPerToken).masked_fill(~real, 0.0).sum();
  } else {
    terms.loss = terms.nll;
  }
  return terms;
}

}  // namespace

LossTerms labelSmoothedLoss(const at::Tensor& logits, const at::Tensor& gold, double smoothing, int64_t ignoreIndex,
                            int64_t knownTokens) {
  const auto flat = logits.reshape({-1, logits.size(-1)});
  const auto target = gold.reshape(-1);
  LossTerms terms;
  at::Tensor real;
  if (fusedApplies(logits)) {
    const auto outputs =
        FusedSmoothedLoss::apply(flat.contiguous(), target.to(at::kLong).contiguous(), smoothing, ignoreIndex);
    terms.loss = outputs[0];
    terms.nll = outputs[1];
  } else {
    real = target.ne(ignoreIndex);
    terms = composite(flat, target, real, smoothing);
  }
  if (knownTokens >= 0) {
    terms.tokens = knownTokens;
  } else {
    if (!real.defined()) real = target.ne(ignoreIndex);
    terms.tokens = real.sum().item<int64_t>();
  }
  return terms;
}

}  // namespace nmt
