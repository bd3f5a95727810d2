#include "decode/GreedyPick.h"

#include "decode/RowOperations.h"
#include "decode/StepColumns.h"
#include "decode/rules/ProducibleRule.h"
#include "kernels/SoftmaxRows.h"

#include <ATen/ATen.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace nmt {
namespace {

GreedyPick throughLogSoftmax(const at::Tensor& logits, bool withLogProbs) {
  const auto logProbs = at::log_softmax(logits, -1);
  auto [best, places] = bestOfEachRow(logProbs);
  return {withLogProbs ? best : at::Tensor(), places};
}

}  // namespace

GreedyPick greedyPick(const at::Tensor& logits, bool withLogProbs, const at::Tensor& rowMasks) {
  if (!logits.device().is_cpu() || logits.scalar_type() != at::kFloat || logits.dim() != 2 || logits.size(1) == 0 ||
      (rowMasks.defined() && (rowMasks.scalar_type() != at::kFloat || !rowMasks.is_contiguous()))) {
    if (!rowMasks.defined()) return throughLogSoftmax(logits, withLogProbs);
    return throughLogSoftmax(logits + rowMasks, withLogProbs);
  }
  const auto rows = logits.contiguous();
  const int64_t R = rows.size(0), V = rows.size(1);
  auto logProbs = withLogProbs ? at::empty({R}, rows.options()) : at::Tensor();
  auto ids = at::empty({R}, rows.options().dtype(at::kLong));
  float* lp = withLogProbs ? logProbs.data_ptr<float>() : nullptr;
  int64_t* id = ids.data_ptr<int64_t>();
  std::vector<float> masked(rowMasks.defined() ? static_cast<std::size_t>(V) : 0);
  for (int64_t r = 0; r < R; ++r) {
    const float* row = rows.data_ptr<float>() + r * V;
    if (rowMasks.defined()) {  // the row as leaveOutUnproducible leaves it, made where it is read
      addRows(row, rowMasks.data_ptr<float>() + r * V, V, masked.data());
      row = masked.data();
    }
    float largest = 0, sum = 0;
    int64_t place = -1;
    // with a shortlist's masks the normaliser is taken over the row's own columns alone (producibleSum)
    largestAndSum(row, V, &largest, &place, lp && !rowMasks.defined() ? &sum : nullptr);
    if (lp && rowMasks.defined() && place >= 0) sum = producibleSum(row, V, largest);
    if (place < 0) {  // NaN (or nothing but -inf): as log_softmax and the row's best have it
      const auto one = throughLogSoftmax(at::from_blob(const_cast<float*>(row), {1, V}, rows.options()), true);
      if (lp) lp[r] = one.logProbs.item<float>();
      id[r] = one.ids.item<int64_t>();
      continue;
    }
    if (lp) lp[r] = (row[place] - largest) - std::log(sum);
    id[r] = place;
  }
  return {logProbs, ids};
}

void logSoftmaxOverProducible(at::Tensor& logits) {
  if (!logits.device().is_cpu() || logits.scalar_type() != at::kFloat || logits.dim() != 2 || !logits.is_contiguous()) {
    logits = at::log_softmax(logits, -1);
    return;
  }
  const int64_t R = logits.size(0), V = logits.size(1);
  for (int64_t r = 0; r < R; ++r) {
    float* row = logits.data_ptr<float>() + r * V;
    float largest = 0;
    int64_t place = -1;
    largestAndSum(row, V, &largest, &place, nullptr);
    if (place < 0) {  // NaN, or nothing but -inf: as log_softmax has it
      auto one = at::from_blob(row, {1, V}, logits.options());
      one.copy_(at::log_softmax(one, -1));
      continue;
    }
    const float logSum = largest + std::log(producibleSum(row, V, largest));
    for (int64_t j = 0; j < V; ++j) row[j] -= logSum;  // -inf stays -inf
  }
}

GreedyPick greedyStep(at::Tensor& logits, const OutputSlice* slice, const at::Tensor& rowMasks, bool logProbs) {
  if (!slice) leaveOutUnproducible(logits, at::Tensor());  // a shortlist's masks: greedyPick adds them
  auto pick = greedyPick(logits, logProbs, slice ? rowMasks : at::Tensor());
  pick.ids = StepColumns(slice).pieces(pick.ids);
  return pick;
}

}  // namespace nmt
