#pragma once

#include "decode/SentenceGuide.h"
#include "decode/rules/StepRule.h"

namespace nmt {

// A row whose sentence has constraints (SentenceGuide::constraints: a glossary's terms) may not end
// (</s>) before it meets them all. What furthers a constraint beam search adds to its candidates itself
// (dynamic beam allocation).
class ConstraintsRule : public StepRule {
 public:
  explicit ConstraintsRule(const std::vector<SentenceGuide>& guides) : guides_(guides) {}
  bool apply(const StepRow& row, const StepColumns& columns) const override;

 private:
  const std::vector<SentenceGuide>& guides_;  // one per batch row
};

}  // namespace nmt
