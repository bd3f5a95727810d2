#include "decode/StepRules.h"

#include "decode/Constraints.h"
#include "decode/rules/ConstraintsRule.h"
#include "decode/rules/NoRepeatRule.h"
#include "decode/rules/PrefixRule.h"

#include <algorithm>

namespace nmt {

StepRules::StepRules(const std::vector<SentenceGuide>* guides, int64_t noRepeatNgram, const OutputSlice* slice)
    : guides_(guides), columns_(slice) {
  if (guides_) {
    prefixes_ = std::any_of(guides_->begin(), guides_->end(), [](const SentenceGuide& g) { return !g.prefix.empty(); });
    constraints_ =
        std::any_of(guides_->begin(), guides_->end(), [](const SentenceGuide& g) { return !g.constraints.empty(); });
  }
  if (prefixes_) rules_.push_back(std::make_unique<PrefixRule>(*guides_));
  if (constraints_) rules_.push_back(std::make_unique<ConstraintsRule>(*guides_));
  if (noRepeatNgram > 0) rules_.push_back(std::make_unique<NoRepeatRule>(noRepeatNgram));
}

bool StepRules::constrained(int64_t sentence) const {
  return constraints_ && !(*guides_)[static_cast<std::size_t>(sentence)].constraints.empty();
}

int64_t StepRules::limitFor(int64_t sentence, int64_t limit, int64_t extra, int64_t cap) const {
  if (!prefixes_ && !constraints_) return limit;
  const auto& guide = (*guides_)[static_cast<std::size_t>(sentence)];
  const auto given = static_cast<int64_t>(guide.prefix.size() + constraintPieces(guide.constraints));
  return given == 0 ? limit : std::max(limit, std::min(cap, given + extra));
}

void StepRules::apply(at::Tensor& logProbs, const std::vector<int64_t>& sentences,
                      const std::vector<const std::vector<int>*>& histories) const {
  if (!any()) return;
  const int64_t V = logProbs.size(1);
  float* data = logProbs.data_ptr<float>();
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    const StepRow row{data + static_cast<int64_t>(i) * V, V, sentences[i], *histories[i]};
    for (const auto& rule : rules_)
      if (rule->apply(row, columns_)) break;
  }
}

}  // namespace nmt
