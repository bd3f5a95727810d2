#include "decode/rules/NoRepeatRule.h"

#include <algorithm>
#include <limits>

namespace nmt {

bool NoRepeatRule::apply(const StepRow& row, const StepColumns& columns) const {
  for (int piece : repeatingPieces(row.history, n_)) {
    const int64_t c = columns.column(piece);
    if (c >= 0) row.logProbs[c] = -std::numeric_limits<float>::infinity();
  }
  return false;
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

}  // namespace nmt
