#pragma once

#include "serve/ServedLanguages.h"
#include "serve/TextTranslation.h"

#include <cstddef>
#include <string>

namespace nmt::serve {

// DeepL's API v2 (its official clients take a server URL), mapped to and from the server's own
// request and result; no HTTP here.
//   POST /v2/translate: {"text": [texts], "target_lang": "EN-US", "source_lang": "DE", "tag_handling": "html",
//   ...} as JSON, or as a form (text=...&text=...&target_lang=EN) -> {"translations": [{"detected_source_language":
//   "DE", "text": ...}]}
//   GET /v2/languages?type=source|target -> [{"language": "DE", "name": "German"(, "supports_formality": false)}]
//   GET /v2/usage -> {"character_count": N, "character_limit": M}
// Errors are {"message": message} (deeplError) with DeepL's statuses: 400, 403 (key), 404, 413, 429, 456
// (quota), 500. Language codes are read in either case; a region (EN-US, PT-BR) is dropped: a model
// translates into a language, not a variety of it.

TextTranslationRequest parseDeepLRequest(const std::string& body, bool form);
std::string deeplTranslateResponse(const TextTranslationResult& result);
// RequestError 400 for a `type` other than "", "source" or "target".
std::string deeplLanguagesResponse(const ServedLanguages& languages, const std::string& type);
std::string deeplUsageResponse(std::size_t characters, std::size_t limit);
std::string deeplError(const std::string& message);

// "de" -> "DE"; and back, "EN-US" -> "en" (RequestError 400 naming `field` when it is no language code).
std::string toDeepLCode(const std::string& code);
std::string fromDeepLCode(const std::string& code, const std::string& field);

}  // namespace nmt::serve
