#pragma once

#include "text/ProtectedSpans.h"
#include "text/SentenceCase.h"

#include <string>

namespace nmt::text {

// What is done to text on its way to a model and back (docs/translation.md, "Text as people send
// it"): each on unless turned off.
struct TextOptions {
  bool splitSentences = true;  // a line is cut into sentences, translated apart, and joined with its own spacing
  bool protectSpans = true;    // web and e-mail addresses, paths, numbers, emoji, unknown characters kept verbatim
  bool restoreCase = true;     // a sentence in capitals is translated in the model's case and given back in capitals
  std::string language;        // the source language's code: whose abbreviations do not end a sentence ("": all)

  bool any() const { return splitSentences || protectSpans || restoreCase; }
  static TextOptions none() { return {false, false, false, ""}; }
};

// What the text's preparation asks of a model's source vocabulary. Empty functions: nothing is unknown,
// and case is not restored.
struct SourceVocabulary {
  KnownCharacter known;
  PieceCount pieces;
};

}  // namespace nmt::text
