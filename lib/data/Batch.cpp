#include "data/Batch.h"

#include "data/LengthBucketBatcher.h"
#include "tokenization/SpecialIds.h"
#include "util/DeviceCopy.h"

#include <torch/torch.h>

#include <algorithm>

namespace nmt {

namespace {

// Both kinds of corpus: sourceOf(i) and targetOf(i) give an example's ids (size() and [k]).
template <typename SourceOf, typename TargetOf>
Batch collate(std::vector<std::size_t> examples, const c10::Device& device, SourceOf sourceOf, TargetOf targetOf) {
  std::stable_sort(examples.begin(), examples.end(),
                   [&](std::size_t a, std::size_t b) { return sourceOf(a).size() > sourceOf(b).size(); });
  const auto rows = static_cast<int64_t>(examples.size());
  int64_t maxSource = 0, maxTarget = 0;
  for (std::size_t i : examples) {
    const ExampleLength length = batchLengthOf(sourceOf(i).size(), targetOf(i).size());
    maxSource = std::max<int64_t>(maxSource, length.source);
    maxTarget = std::max<int64_t>(maxTarget, length.target);
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
    const auto& s = sourceOf(examples[r]);
    const auto& t = targetOf(examples[r]);
    int64_t c = 0;
    for (std::size_t k = 0; k < s.size(); ++k) src[r][c++] = s[k];
    src[r][c++] = SpecialIds::kEos;
    srcLen[r] = c;
    batch.sourceTokens += c;
    c = 0;
    tgt[r][c++] = SpecialIds::kBos;
    for (std::size_t k = 0; k < t.size(); ++k) tgt[r][c++] = t[k];
    tgt[r][c++] = SpecialIds::kEos;
    tgtLen[r] = c;
    batch.targetTokens += c;
  }

  batch.source = toDeviceWithoutWait(source, device);
  batch.target = toDeviceWithoutWait(target, device);
  batch.sourceMask = batch.source.ne(SpecialIds::kPad);
  batch.targetMask = batch.target.ne(SpecialIds::kPad);
  batch.sourceLengths = sourceLengths;
  batch.targetLengths = targetLengths;
  batch.examples = std::move(examples);
  return batch;
}

}  // namespace

Batch makeBatch(const std::vector<EncodedPair>& pairs, std::vector<std::size_t> examples, const c10::Device& device) {
  return collate(
      std::move(examples), device, [&](std::size_t i) -> const std::vector<int>& { return pairs[i].source; },
      [&](std::size_t i) -> const std::vector<int>& { return pairs[i].target; });
}

Batch makeSourceBatch(const std::vector<std::vector<int>>& sources, std::vector<std::size_t> examples,
                      const c10::Device& device) {
  static const std::vector<int> none;
  return collate(
      std::move(examples), device, [&](std::size_t i) -> const std::vector<int>& { return sources[i]; },
      [&](std::size_t) -> const std::vector<int>& { return none; });
}

Batch makeBatch(const PreparedCorpus& corpus, std::vector<std::size_t> examples, const c10::Device& device) {
  return collate(
      std::move(examples), device, [&](std::size_t i) { return corpus.source(i); },
      [&](std::size_t i) { return corpus.target(i); });
}

}  // namespace nmt
