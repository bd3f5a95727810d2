#pragma once

#include "tokenization/BpeModel.h"
#include "tokenization/SourceWordCache.h"

#include <cstddef>
#include <string>
#include <vector>

namespace nmt {

// A source sentence as a model reads it.
struct SourceText {
  std::vector<int> ids;             // BPE ids, truncated to the model's maximum, without </s>
  std::vector<std::string> pieces;  // the same as pieces as written (an unknown character shows itself), then "</s>"
  std::size_t inputPieces = 0;      // pieces before truncation
  bool truncated = false;           // the sentence had more pieces than the maximum
};

// A target as a user reads it.
struct TargetText {
  std::string text;
  std::vector<std::string> pieces;  // "</s>" last when the translation ended with it
  std::vector<int> ids;             // without </s>
};

// Text <-> pieces for one model: its two BPE models and the most source pieces it reads (0: no
// limit). Every front end (the programs, the server, Python) reads and writes text through it.
class TextCodec {
 public:
  // sourceWords: the source's words seen before (a model's, shared by its codecs), or none.
  TextCodec(const BpeModel& source, const BpeModel& target, std::size_t maxSourcePieces,
            const SourceWordCache* sourceWords = nullptr)
      : source_(source), target_(target), maxSourcePieces_(maxSourcePieces), sourceWords_(sourceWords) {}

  SourceText source(const std::string& sentence) const;
  // Target ids back to text and pieces; finished: it ended with </s>.
  TargetText target(std::vector<int> ids, bool finished) const;
  // A given translation (forced decoding): its ids, its pieces as written, "</s>" last.
  TargetText reference(const std::string& text) const;

 private:
  const BpeModel& source_;
  const BpeModel& target_;
  std::size_t maxSourcePieces_;
  const SourceWordCache* sourceWords_;
};

}  // namespace nmt
