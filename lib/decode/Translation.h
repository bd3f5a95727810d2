#pragma once

#include "decode/Hypothesis.h"
#include "tokenization/TextCodec.h"

#include <ATen/core/Tensor.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace nmt {

// One hypothesis of a translation, read back as text and pieces.
struct TranslatedHypothesis {
  std::string text;
  std::vector<std::string> pieces;  // target pieces, "</s>" last when it was produced
  std::vector<int> ids;             // target ids, without </s>
  double score = 0.0;               // log-probability, </s> included when it was produced
  bool finished = false;            // ended with </s> (false: cut at the length limit)
  double normalizedScore = 0.0;     // what the n-best list is ordered by: beam search's length-normalised
                                    // score (Hypothesis::normalizedScore); the score where nothing ranked (greedy, forced)
  std::size_t prefixPieces = 0;     // the first pieces (and ids) were the given prefix, not searched for
};

// Everything known of one sentence's translation: what was read, the hypotheses best first,
// and the best one's attention. Whole: nothing needs the Translator to be read.
struct Translation {
  std::vector<int> sourceIds;             // the BPE ids read (after truncation), without </s>
  std::vector<std::string> sourcePieces;  // the same as pieces, then "</s>"
  std::size_t inputPieces = 0;            // pieces before truncation
  bool truncated = false;                 // the input had more than the model's maximum
  std::vector<TranslatedHypothesis> hypotheses;  // best first (one unless nbest > 1); none for an empty input
  at::Tensor attention;  // the best hypothesis' [its pieces, source pieces], when asked for
  std::vector<std::string> missingTerms;  // glossary target terms the best hypothesis lacks (cut at the length limit)
  std::vector<std::pair<int, int>> alignment;  // the best hypothesis' word alignment (source word, target
                                               // word), when asked for (decode/WordAlignment.h)

  bool empty() const { return hypotheses.empty(); }
  const TranslatedHypothesis& best() const { return hypotheses.front(); }
};

// One choice at a position of a translation (Translator::alternatives): a piece, how likely the model
// finds it there, and the translation that follows from choosing it.
struct Alternative {
  std::string piece;                // "</s>": the translation ends there
  int id = 0;
  double logProbability = 0.0;      // of the piece after the prefix
  TranslatedHypothesis completion;  // the prefix, the piece, then the search's continuation (prefixPieces
                                    // counts the prefix and the piece; score: the whole log-probability)
};

// A translation of `sentence` with its source read (TextCodec::source) and no hypotheses yet.
Translation untranslated(const TextCodec& codec, const std::string& sentence);
// A search's hypotheses (best first) into t, read back as text and pieces; the best one's attention
// when the search kept it. prefixPieces: how many of each one's first pieces were given. cutLoops: a
// hypothesis without a prefix that loops is cut to each loop's first turn (LoopGuard.h), its pieces,
// ids and attention rows with it; its score stays the search's.
void addHypotheses(Translation& t, std::vector<Hypothesis> hypotheses, const TextCodec& codec,
                   std::size_t prefixPieces = 0, bool cutLoops = true);

}  // namespace nmt
