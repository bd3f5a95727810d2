#pragma once

#include "serve/ServedLanguages.h"
#include "serve/TextTranslation.h"

#include <string>

namespace nmt::serve {

// LibreTranslate's API (the one Weblate, browser extensions and chat bots speak), mapped to and from
// the server's own request and result; no HTTP here.
//   POST /translate: {"q": text or [texts], "source": code or "auto", "target": code, "format": "text" or
//   "html", "alternatives": N, "api_key": key}, as JSON or as a form -> {"translatedText": text or [texts],
//   ["alternatives": [...]], ["detectedLanguage": {"language", "confidence"}]}
//   GET /languages -> [{"code", "name", "targets": [codes]}]
// Errors are {"error": message} (errorResponse) with LibreTranslate's statuses: 400, 403, 429, 500.

// RequestError 400 ("Invalid request: missing q parameter", ...) for what LibreTranslate refuses; other
// fields are ignored as LibreTranslate does. `alternatives` above maxAlternatives is refused.
TextTranslationRequest parseLibreTranslateRequest(const std::string& body, bool form, std::size_t maxAlternatives);
std::string libreTranslateResponse(const TextTranslationRequest& request, const TextTranslationResult& result);
std::string libreLanguagesResponse(const ServedLanguages& languages);

}  // namespace nmt::serve
