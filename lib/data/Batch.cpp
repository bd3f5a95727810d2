#include "data/Batch.h"

#include "tokenization/SpecialIds.h"

#include <torch/torch.h>

#include <algorithm>

namespace nmt {

Batch makeBatch(const std::vector<EncodedPair>& pairs, std::vector<std::size_t> examples, const c10::Device& device) {
  std::stable_sort(examples.begin(), examples.end(),
                   [&](std::size_t a, std::size_t b) { return pairs[a].source.size() > pairs[b].source.size(); });
  const auto rows = static_cast<int64_t>(examples.size());
  int64_t maxSource = 0, maxTarget = 0;
  for (std::size_t i : examples) {
    maxSource = std::max<int64_t>(maxSource, pairs[i].source.size() + 1);
    maxTarget = std::max<int64_t>(maxTarget, pairs[i].target.size() + 2);
  }

  auto longOpts = torch::TensorOptions().dtype(torch::kInt64);
  torch::Tensor source = torch::full({rows, maxSource}, SpecialIds::kPad, longOpts);
  torch::Tensor target = torch::full({rows, maxTarget}, SpecialIds::kPad, longOpts);
  torch::Tensor sourceLengths = torch::empty({rows}, longOpts);
  torch::Tensor targetLengths = torch::empty({rows}, longOpts);
  auto src = source.accessor<int64_t, 2>();
  auto tgt = target.accessor<int64_t, 2>();
  auto srcLen = sourceLengths.accessor<int64_t, 1>();
  auto tgtLen = targetLengths.accessor<int64_t, 1>();

  Batch batch;
  for (int64_t r = 0; r < rows; ++r) {
    const auto& p = pairs[examples[r]];
    int64_t c = 0;
    for (int id : p.source) src[r][c++] = id;
    src[r][c++] = SpecialIds::kEos;
    srcLen[r] = c;
    batch.sourceTokens += c;
    c = 0;
    tgt[r][c++] = SpecialIds::kBos;
    for (int id : p.target) tgt[r][c++] = id;
    tgt[r][c++] = SpecialIds::kEos;
    tgtLen[r] = c;
    batch.targetTokens += c;
  }

  const bool pin = device.is_cuda();
  auto toDevice = [&](const torch::Tensor& t) {
    return device.is_cpu() ? t : (pin ? t.pin_memory() : t).to(device, /*non_blocking=*/pin);
  };
  batch.source = toDevice(source);
  batch.target = toDevice(target);
  batch.sourceMask = batch.source.ne(SpecialIds::kPad);
  batch.targetMask = batch.target.ne(SpecialIds::kPad);
  batch.sourceLengths = sourceLengths;
  batch.targetLengths = targetLengths;
  batch.examples = std::move(examples);
  return batch;
}

}  // namespace nmt
