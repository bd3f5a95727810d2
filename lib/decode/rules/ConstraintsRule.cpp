#include "decode/rules/ConstraintsRule.h"

#include "decode/Constraints.h"
#include "tokenization/SpecialIds.h"

#include <limits>

namespace nmt {

bool ConstraintsRule::apply(const StepRow& row, const StepColumns& columns) const {
  const auto& constraints = guides_[static_cast<std::size_t>(row.sentence)].constraints;
  if (constraints.empty() || constraintProgress(row.history, constraints).allMet) return false;
  const int64_t end = columns.column(SpecialIds::kEos);
  if (end >= 0) row.logProbs[end] = -std::numeric_limits<float>::infinity();
  return false;
}

}  // namespace nmt
