#pragma once

#include "decode/BatchShortlist.h"
#include "model/Seq2Seq.h"

#include <vector>

namespace nmt {

struct ForcedResult {
  at::Tensor attention;  // [target pieces + 1 (</s>), source pieces + 1 (</s>)] on the CPU
  double score = 0.0;    // log-probability of target + </s>
  at::Tensor next;       // [V] float32 on the CPU: each target id's log-probability right after target (where
                         // </s> was scored); -inf for what a search may not produce there
};

// Feeds a known translation one piece a step, as the searches step (teacher forcing), and records
// what the decoder attended to at each target piece: how the model aligns a given sentence pair,
// and the log-probability a search that found it gave it: over the pieces a search may produce, or
// with a shortlist (one sentence's: forcedShortlist) over its own list. Call under inference mode.
ForcedResult forcedDecode(Seq2Seq& model, const std::vector<int>& source, const std::vector<int>& target,
                          const BatchShortlist* shortlist = nullptr);

// The shortlist forced decoding of `target` after `source` reads: the source's own list with the
// target's pieces added, so that a search's own output (whose pieces are in its list) scores what the
// search gave it, and any other translation a finite score.
BatchShortlist forcedShortlist(const Seq2Seq& model, const Shortlist& shortlist, const std::vector<int>& source,
                               const std::vector<int>& target);

}  // namespace nmt
