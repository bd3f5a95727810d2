#pragma once

#include "model/Seq2Seq.h"

#include <vector>

namespace nmt {

struct ForcedResult {
  at::Tensor attention;  // [target pieces + 1 (</s>), source pieces + 1 (</s>)] on the CPU
  double score = 0.0;    // log-probability of target + </s>
};

// Feeds a known translation one piece a step, as the searches step (teacher forcing), and records
// what the decoder attended to at each target piece: how the model aligns a given sentence pair,
// and the log-probability a search that found it gave it (over the whole vocabulary). Call under
// inference mode.
ForcedResult forcedDecode(Seq2Seq& model, const std::vector<int>& source, const std::vector<int>& target);

}  // namespace nmt
