#include "train/SubwordSampling.h"

#include "util/SplitMix.h"

#include <numeric>

namespace nmt {

SubwordSampling::SubwordSampling(const BpeModel& source, const BpeModel& target, double alpha, uint64_t seed)
    : source_(source, alpha), target_(target, alpha), seed_(seed) {}

EncodedPair SubwordSampling::pair(const PreparedCorpus& corpus, std::size_t row, int64_t epoch) const {
  const uint64_t stream = splitMix(splitMix(splitMix(seed_) ^ static_cast<uint64_t>(epoch)) ^ row);
  SplitMixStream sourceDraws(splitMix(stream ^ 1)), targetDraws(splitMix(stream ^ 2));
  return {source_.sample(corpus.source(row), sourceDraws), target_.sample(corpus.target(row), targetDraws), row + 1};
}

std::vector<ExampleLength> SubwordSampling::lengths(const PreparedCorpus& corpus, int64_t epoch) const {
  std::vector<ExampleLength> out(corpus.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto p = pair(corpus, i, epoch);
    out[i] = batchLengthOf(p.source.size(), p.target.size());
  }
  return out;
}

Batch SubwordSampling::batch(const PreparedCorpus& corpus, const std::vector<std::size_t>& rows, int64_t epoch,
                             const c10::Device& device) const {
  std::vector<EncodedPair> pairs;
  pairs.reserve(rows.size());
  for (const std::size_t row : rows) pairs.push_back(pair(corpus, row, epoch));
  std::vector<std::size_t> local(rows.size());
  std::iota(local.begin(), local.end(), std::size_t{0});
  Batch out = makeBatch(pairs, std::move(local), device);
  for (auto& example : out.examples) example = rows[example];
  return out;
}

}  // namespace nmt
