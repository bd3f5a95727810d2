#include "decode/rules/PrefixRule.h"

#include <algorithm>
#include <limits>

namespace nmt {

bool PrefixRule::apply(const StepRow& row, const StepColumns& columns) const {
  const auto& prefix = guides_[static_cast<std::size_t>(row.sentence)].prefix;
  if (row.history.size() >= prefix.size()) return false;
  const float minusInfinity = -std::numeric_limits<float>::infinity();
  const int64_t keep = columns.column(prefix[row.history.size()]);
  const float value = keep >= 0 ? row.logProbs[keep] : minusInfinity;
  std::fill(row.logProbs, row.logProbs + row.columns, minusInfinity);
  if (keep >= 0) row.logProbs[keep] = value > minusInfinity ? value : std::numeric_limits<float>::lowest();
  return true;
}

}  // namespace nmt
