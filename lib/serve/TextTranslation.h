#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace nmt::serve {

// What a LibreTranslate or DeepL request asks, read from its body, in neither API's names: the one
// request both map to (the server splits the texts into sentences with TextSegments).
struct TextTranslationRequest {
  std::vector<std::string> texts;
  bool single = false;           // LibreTranslate's "q" as one string: the answer is one string too
  std::string source;            // a language code; "" for auto
  std::string target;            // a language code
  bool html = false;             // tags kept, the text between them translated
  std::size_t alternatives = 0;  // other translations wanted of each text (LibreTranslate)
  bool splitSentences = true;    // DeepL's split_sentences "0": each line (or run of HTML text) translated whole
  std::string apiKey;            // the key given in the body (LibreTranslate's api_key, DeepL's auth_key)
};

// What the server answers it with, for either API to shape.
struct TextTranslationResult {
  std::vector<std::string> texts;                      // one per text asked for
  std::vector<std::vector<std::string>> alternatives;  // per text, when asked for
  std::string source;                                  // the source language (the one auto stood for)
  bool sourceWasAuto = false;
};

}  // namespace nmt::serve
