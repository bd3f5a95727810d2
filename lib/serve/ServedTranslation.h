#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace nmt::serve {

// One hypothesis of an n-best list.
struct ServedHypothesis {
  std::string text;
  double score = 0.0;  // log-probability, </s> included when it was produced
  std::vector<std::string> pieces;  // target pieces, with "</s>" when it was produced
  std::size_t prefixPieces = 0;     // the first pieces were the given prefix
};

// One alternative piece after a prefix, with the translation that follows from it.
struct ServedAlternative {
  std::string piece;
  double logProbability = 0.0;
  ServedHypothesis translation;
};

// What the server answers for one sentence: plain values, no tensors.
struct ServedTranslation {
  std::vector<ServedHypothesis> hypotheses;  // best first; none for an empty sentence
  std::vector<std::string> sourcePieces;     // as read (after truncation), then "</s>"
  std::vector<std::vector<float>> attention;  // [target pieces][source pieces] of the best, when asked for
  std::string warning;                        // e.g. the sentence was truncated; empty when none
  bool aligned = false;                       // alignment asked for
  std::vector<std::pair<int, int>> alignment;  // the best's (source word, target word) pairs
  std::vector<ServedAlternative> alternatives;  // asked for instead of a translation, most likely first
  std::vector<std::string> missingTerms;        // glossary terms the best lacks (the length limit came first)
};

}  // namespace nmt::serve
