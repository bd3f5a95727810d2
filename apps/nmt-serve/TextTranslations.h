#pragma once

#include "ModelSet.h"
#include "serve/TextSegments.h"
#include "serve/TextTranslation.h"
#include "serve/TranslateRequest.h"

#include <exception>
#include <functional>
#include <memory>

namespace nmt::serve {

// A LibreTranslate or DeepL request made ready to decode: its model chosen by languages, its texts
// cut into sentences (TextSegments), its search (greedy, or beam search for alternatives).
struct PreparedTexts {
  ServedModel* model = nullptr;
  std::string source;  // the source language (what auto stood for)
  bool sourceWasAuto = false;
  std::unique_ptr<TextSegments> segments;
  DecodingOptions decoding;
  std::size_t alternatives = 0;
  RequestGuidance guidance;  // what is done to the text (sentences, spans, capitals)
};

// RequestError (400: languages, control characters; 413: more sentences than limits.maxSentences) before
// anything is decoded.
PreparedTexts prepareTexts(ModelSet& models, const TextTranslationRequest& request, const RequestLimits& limits);

// Decodes the sentences and answers `done` with the texts put back together (or the decoding failure),
// from the thread that finished them.
using TextsDone = std::function<void(TextTranslationResult result, std::exception_ptr failure)>;
void translateTexts(PreparedTexts prepared, TextsDone done);

}  // namespace nmt::serve
