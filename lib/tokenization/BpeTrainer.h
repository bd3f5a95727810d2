#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace nmt {

struct BpeTrainOptions {
  std::vector<std::string> inputs;   // text files, one sentence a line
  std::string modelPrefix;           // writes PREFIX.model and PREFIX.vocab
  int vocabSize = 8000;              // pieces, including the 4 special ids
  double characterCoverage = 1.0;    // share of characters kept; the rarest rest map to unk
  std::size_t inputSentenceLimit = 0;  // 0: train on every line; else a seeded sample of that many
  unsigned seed = 1;                 // seeds the sentence sample
  int threads = 2;                   // SentencePiece trainer threads
  bool quiet = true;                 // silence SentencePiece's own progress log
};

// Trains a SentencePiece BPE model with the toolkit's fixed special ids (SpecialIds.h).
// Throws BpeError with SentencePiece's reason (e.g. vocabulary too large for the data). Writes
// PREFIX.model and PREFIX.vocab atomically (under temporary names, checked, then renamed): a
// full disk gives WriteError "cannot write PREFIX.model: REASON" and leaves neither behind.
void trainBpeModel(const BpeTrainOptions& options);

}  // namespace nmt
