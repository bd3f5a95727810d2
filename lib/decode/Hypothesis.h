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
  double rank = std::numeric_limits<double>::quiet_NaN();  // beam search: the length-normalised score it
                                                           // ranked by (normalizedScore); NaN: none (greedy)
  at::Tensor attention;     // [ids (+1 for </s>), source length] on the CPU, when asked for
};

}  // namespace nmt
