#include "decode/StepRules.h"

#include "decode/Constraints.h"
#include "tokenization/SpecialIds.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <limits>

namespace nmt {

StepRules::StepRules(const std::vector<SentenceGuide>* guides, int64_t noRepeatNgram, const OutputSlice* slice)
    : guides_(guides), noRepeatNgram_(noRepeatNgram), slice_(slice) {
  if (!guides_) return;
  prefixes_ = std::any_of(guides_->begin(), guides_->end(), [](const SentenceGuide& g) { return !g.prefix.empty(); });
  constraints_ =
      std::any_of(guides_->begin(), guides_->end(), [](const SentenceGuide& g) { return !g.constraints.empty(); });
}

bool StepRules::constrained(int64_t sentence) const {
  return constraints_ && !(*guides_)[static_cast<std::size_t>(sentence)].constraints.empty();
}

int64_t StepRules::column(int piece) const { return slice_ ? slice_->column(piece) : piece; }

int64_t StepRules::limitFor(int64_t sentence, int64_t limit, int64_t extra, int64_t cap) const {
  if (!prefixes_ && !constraints_) return limit;
  const auto& guide = (*guides_)[static_cast<std::size_t>(sentence)];
  const auto given = static_cast<int64_t>(guide.prefix.size() + constraintPieces(guide.constraints));
  return given == 0 ? limit : std::max(limit, std::min(cap, given + extra));
}

std::vector<int> repeatingPieces(const std::vector<int>& history, int64_t n) {
  std::vector<int> out;
  const auto length = static_cast<int64_t>(history.size());
  if (n <= 0 || length < n - 1) return out;
  // the last n - 1 pieces, wherever they came before, and what followed them there
  const int64_t tail = length - (n - 1);
  for (int64_t start = 0; start + n - 1 < length; ++start) {
    if (!std::equal(history.begin() + start, history.begin() + start + (n - 1), history.begin() + tail)) continue;
    const int next = history[static_cast<std::size_t>(start + n - 1)];
    if (std::find(out.begin(), out.end(), next) == out.end()) out.push_back(next);
  }
  return out;
}

void StepRules::apply(at::Tensor& logProbs, const std::vector<int64_t>& sentences,
                      const std::vector<const std::vector<int>*>& histories) const {
  if (!any()) return;
  const int64_t V = logProbs.size(1);
  float* data = logProbs.data_ptr<float>();
  const float minusInfinity = -std::numeric_limits<float>::infinity();
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    float* row = data + static_cast<int64_t>(i) * V;
    const auto& history = *histories[i];
    const auto* prefix = guides_ ? &(*guides_)[static_cast<std::size_t>(sentences[i])].prefix : nullptr;
    if (prefix && history.size() < prefix->size()) {  // inside the prefix: its next piece only
      const int64_t keep = column((*prefix)[history.size()]);
      const float value = keep >= 0 ? row[keep] : minusInfinity;
      std::fill(row, row + V, minusInfinity);
      // a piece the model gives no chance still comes (its score -inf would end the search)
      if (keep >= 0) row[keep] = value > minusInfinity ? value : std::numeric_limits<float>::lowest();
      continue;
    }
    if (constrained(sentences[i]) &&
        !constraintProgress(history, (*guides_)[static_cast<std::size_t>(sentences[i])].constraints).allMet) {
      const int64_t end = column(SpecialIds::kEos);  // not before every constraint is met
      if (end >= 0) row[end] = minusInfinity;
    }
    if (noRepeatNgram_ == 0) continue;
    for (int piece : repeatingPieces(history, noRepeatNgram_)) {
      const int64_t c = column(piece);
      if (c >= 0) row[c] = minusInfinity;
    }
  }
}

}  // namespace nmt
