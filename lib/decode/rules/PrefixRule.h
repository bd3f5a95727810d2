#pragma once

#include "decode/SentenceGuide.h"
#include "decode/rules/StepRule.h"

namespace nmt {

// A row still inside its sentence's prefix may choose only the prefix's next piece (scored what the
// model gave it, or the lowest float where the model gave it no chance: -inf would end the search).
// Settles the row: a prefix is given, so its own repeats and its ends stand.
class PrefixRule : public StepRule {
 public:
  explicit PrefixRule(const std::vector<SentenceGuide>& guides) : guides_(guides) {}
  bool apply(const StepRow& row, const StepColumns& columns) const override;

 private:
  const std::vector<SentenceGuide>& guides_;  // one per batch row
};

}  // namespace nmt
