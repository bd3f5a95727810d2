#pragma once

#include <string>
#include <vector>

namespace nmt::serve {

// One hypothesis of an n-best list.
struct ServedHypothesis {
  std::string text;
  double score = 0.0;  // log-probability, </s> included when it was produced
  std::vector<std::string> pieces;  // target pieces, with "</s>" when it was produced
};

// What the server answers for one sentence: plain values, no tensors.
struct ServedTranslation {
  std::vector<ServedHypothesis> hypotheses;  // best first; none for an empty sentence
  std::vector<std::string> sourcePieces;     // as read (after truncation), then "</s>"
  std::vector<std::vector<float>> attention;  // [target pieces][source pieces] of the best, when asked for
  std::string warning;                        // e.g. the sentence was truncated; empty when none
};

}  // namespace nmt::serve
