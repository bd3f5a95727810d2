#include "decode/RunningBatch.h"

namespace nmt {

RunningBatch::RunningBatch(const Translator& translator, std::size_t capacity)
    : translator_(translator),
      search_(translator.model().model, translator.options().decoding.limits, capacity, translator.shortlist()) {}

Arrivals RunningBatch::encode(const Translator& translator, std::vector<std::pair<std::size_t, Translation>> sentences,
                              const std::vector<bool>& keepAttention) {
  Arrivals arrivals;
  std::vector<EncodedPair> sources;
  std::vector<std::size_t> tags;
  for (const auto& [tag, t] : sentences) {
    sources.push_back({t.sourceIds, {}, 0});
    tags.push_back(tag);
  }
  arrivals.group = ContinuousGreedySearch::encode(translator.model().model, translator.options().decoding.limits,
                                                  sources, tags, keepAttention, translator.shortlist());
  arrivals.sentences = std::move(sentences);
  return arrivals;
}

void RunningBatch::add(Arrivals arrivals) {
  for (auto& [tag, t] : arrivals.sentences) sentences_.emplace(tag, std::move(t));
  search_.add(std::move(arrivals.group));
}

std::vector<std::pair<std::size_t, Translation>> RunningBatch::step() {
  std::vector<std::pair<std::size_t, Translation>> ended;
  for (auto& [tag, hypothesis] : search_.step()) {
    auto node = sentences_.extract(tag);
    translator_.finish(node.mapped(), {std::move(hypothesis)});
    ended.emplace_back(tag, std::move(node.mapped()));
  }
  return ended;
}

}  // namespace nmt
