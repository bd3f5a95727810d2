#include "serve/DeepLApi.h"

#include "serve/FormFields.h"
#include "serve/JsonBody.h"
#include "serve/TranslateRequest.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

namespace nmt::serve {
namespace {

using nlohmann::json;

RequestError bad(const std::string& message) { return RequestError(400, message); }

std::string dumped(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace

std::string toDeepLCode(const std::string& code) {
  std::string upper = code;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  return upper;
}

std::string fromDeepLCode(const std::string& code, const std::string& field) {
  std::string language = code.substr(0, code.find('-'));
  std::transform(language.begin(), language.end(), language.begin(), [](unsigned char c) { return std::tolower(c); });
  if (!isLanguageCode(language)) throw bad(fmt::format("Value for '{}' not supported: {}", field, code));
  return language;
}

TextTranslationRequest parseDeepLRequest(const std::string& body, bool form) {
  TextTranslationRequest r;
  std::string target, source, tagHandling, split;
  if (form) {
    const FormFields fields(body);
    r.texts = fields.all("text");
    target = fields.first("target_lang");
    source = fields.first("source_lang");
    tagHandling = fields.first("tag_handling");
    split = fields.first("split_sentences");
    r.apiKey = fields.first("auth_key");
  } else {
    const json doc = parseJsonObject(body);
    const auto text = [&](const char* name) -> std::string {
      if (!doc.contains(name) || doc[name].is_null()) return {};
      if (!doc[name].is_string()) throw bad(fmt::format("Value for '{}' must be a string", name));
      return doc[name].get<std::string>();
    };
    if (doc.contains("text")) {
      if (!doc["text"].is_array()) throw bad("Value for 'text' must be a list of strings");
      for (const auto& item : doc["text"]) {
        if (!item.is_string()) throw bad("Value for 'text' must be a list of strings");
        r.texts.push_back(item.get<std::string>());
      }
    }
    target = text("target_lang");
    source = text("source_lang");
    tagHandling = text("tag_handling");
    split = text("split_sentences");
    r.apiKey = text("auth_key");
  }
  if (r.texts.empty()) throw bad("Parameter 'text' not specified.");
  if (target.empty()) throw bad("Value for 'target_lang' not supported.");
  r.target = fromDeepLCode(target, "target_lang");
  if (!source.empty()) r.source = fromDeepLCode(source, "source_lang");
  if (!tagHandling.empty() && tagHandling != "html" && tagHandling != "xml")
    throw bad(fmt::format("Value for 'tag_handling' not supported: {}", tagHandling));
  r.html = !tagHandling.empty();
  // "1" (the default) and "nonewlines": sentences; "0": each text whole (lines are apart either way)
  if (!split.empty() && split != "0" && split != "1" && split != "nonewlines")
    throw bad(fmt::format("Value for 'split_sentences' not supported: {}", split));
  r.splitSentences = split != "0";
  return r;
}

std::string deeplTranslateResponse(const TextTranslationResult& result) {
  json list = json::array();
  for (const auto& text : result.texts)
    list.push_back({{"detected_source_language", toDeepLCode(result.source)}, {"text", text}});
  return dumped({{"translations", std::move(list)}});
}

std::string deeplLanguagesResponse(const ServedLanguages& languages, const std::string& type) {
  if (!type.empty() && type != "source" && type != "target")
    throw bad(fmt::format("Value for 'type' not supported: {} (source or target)", type));
  const bool targets = type == "target";
  json list = json::array();
  for (const auto& code : targets ? languages.targets() : languages.sources()) {
    json entry = {{"language", toDeepLCode(code)}, {"name", languageName(code)}};
    if (targets) entry["supports_formality"] = false;
    list.push_back(std::move(entry));
  }
  return dumped(list);
}

std::string deeplUsageResponse(std::size_t characters, std::size_t limit) {
  return dumped({{"character_count", characters}, {"character_limit", limit}});
}

std::string deeplError(const std::string& message) { return dumped({{"message", message}}); }

}  // namespace nmt::serve
