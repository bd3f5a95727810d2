#pragma once

#include "decode/SentenceGuide.h"
#include "decode/StepColumns.h"
#include "decode/rules/StepRule.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace nmt {

// The chain of rules that decides what a search step may choose, applied in one order by greedy and
// beam search alike (decode/rules, one file each):
//   1. before the softmax, what a row may never produce: <pad> and <s>, or with a shortlist every
//      piece outside its sentence's own list (leaveOutUnproducible, or greedyPick's fused form);
//   2. a row inside its sentence's prefix: the prefix's next piece only, and nothing after (PrefixRule);
//   3. a row whose sentence has constraints: no end before they are all met (ConstraintsRule);
//   4. with no-repeat-ngram n: no piece that repeats an n-gram of the row's history (NoRepeatRule);
// then the pick: the best, a draw (Sampler), or beam search's candidates. Rules 2-4 apply to the
// step's log-probabilities, so that a chosen piece scores what the model gave it; the chain holds
// only the rules that apply to the call.
class StepRules {
 public:
  // guides: one per batch row (null: none); slice: the columns' pieces with a shortlist (null: column n is piece n).
  StepRules(const std::vector<SentenceGuide>* guides, int64_t noRepeatNgram, const OutputSlice* slice);

  // false: no rule after the first applies, and the searches need not keep their rows' histories
  bool any() const { return !rules_.empty(); }
  bool constrained(int64_t sentence) const;  // the batch row's sentence has constraints
  // Rules 2-4. logProbs [rows, columns] float32 on the CPU: row i belongs to batch row sentences[i] and has
  // produced *histories[i]; the pieces it may not choose become -inf, in place.
  void apply(at::Tensor& logProbs, const std::vector<int64_t>& sentences,
             const std::vector<const std::vector<int>*>& histories) const;
  // A batch row's length limit, grown where needed to hold its prefix (and its constraints' pieces) and
  // `extra` more pieces (within `cap`).
  int64_t limitFor(int64_t sentence, int64_t limit, int64_t extra, int64_t cap) const;

  const StepColumns& columns() const { return columns_; }

 private:
  const std::vector<SentenceGuide>* guides_;
  bool prefixes_ = false, constraints_ = false;
  StepColumns columns_;
  std::vector<std::unique_ptr<const StepRule>> rules_;  // in the chain's order
};

}  // namespace nmt
