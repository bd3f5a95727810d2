#pragma once

#include <ATen/core/Tensor.h>

#include <limits>
#include <vector>

namespace nmt {

// One translation of one batch row, as a search found it: target ids and their log-probability.
struct Hypothesis {
  std::vector<int> ids;     // target ids, without <s> and </s>
  double score = 0.0;       // sum of log-probabilities, </s> included when it was produced (NaN: not asked for)
  bool finished = false;    // produced </s> (false: cut at the length limit)
  // beam search: the length-normalised score it ranked by (BeamSearch.h); NaN: none (greedy)
  double normalizedScore = std::numeric_limits<double>::quiet_NaN();
  at::Tensor attention;     // [ids (+1 for </s>), source length] on the CPU, when asked for
};

}  // namespace nmt
