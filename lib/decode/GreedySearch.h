#pragma once

#include "data/Batch.h"
#include "decode/DecodeLimits.h"
#include "model/Seq2Seq.h"

#include <vector>

namespace nmt {

// One translation of one batch row.
struct Hypothesis {
  std::vector<int> tokens;  // target ids, without <s> and </s>
  double score = 0.0;       // sum of log-probabilities, </s> included when it was produced
  bool finished = false;    // produced </s> (false: cut at the length limit)
  at::Tensor attention;     // [tokens (+1 for </s>), source length] on the CPU, when asked for
};

// Batched greedy decoding of batch.source; row r of the result is row r of the batch. Runs
// until every row has produced </s> or reached its limit. Call it under inference mode.
std::vector<Hypothesis> greedySearch(Seq2Seq& model, const Batch& batch, const DecodeLimits& limits,
                                     bool keepAttention = false);

}  // namespace nmt
