#include "decode/RunningBatch.h"

namespace nmt {

RunningBatch::RunningBatch(TranslationModel& model, DecodeLimits limits, std::size_t capacity, bool scores)
    : codec_(model.codec()), cutLoops_(limits.cutLoops), search_(model.model, limits, capacity, model.shortlist.get(), scores) {}

Arrivals RunningBatch::encode(TranslationModel& model, DecodeLimits limits,
                              std::vector<std::pair<std::size_t, Translation>> sentences,
                              const std::vector<bool>& keepAttention) {
  Arrivals arrivals;
  std::vector<std::vector<int>> sources;
  std::vector<std::size_t> tags;
  for (const auto& [tag, t] : sentences) {
    sources.push_back(t.sourceIds);
    tags.push_back(tag);
  }
  arrivals.group =
      ContinuousGreedySearch::encode(model.model, limits, sources, tags, keepAttention, model.shortlist.get());
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
    addHypotheses(node.mapped(), {std::move(hypothesis)}, codec_, 0, cutLoops_);
    ended.emplace_back(tag, std::move(node.mapped()));
  }
  return ended;
}

}  // namespace nmt
