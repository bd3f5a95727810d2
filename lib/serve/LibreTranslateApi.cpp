#include "serve/LibreTranslateApi.h"

#include "serve/FormFields.h"
#include "serve/JsonBody.h"
#include "serve/TranslateRequest.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace nmt::serve {
namespace {

using nlohmann::json;

RequestError invalid(const std::string& what) { return RequestError(400, "Invalid request: " + what); }

// The fields LibreTranslate reads, from JSON or a form, as strings (q: each value).
struct LibreFields {
  std::vector<std::string> q;
  bool single = true;
  std::string source, target, format, alternatives, apiKey;
};

LibreFields fromJson(const std::string& body) {
  json doc;
  try {
    doc = parseJsonObject(body);
  } catch (const RequestError& e) {
    throw invalid(e.what());
  }
  LibreFields f;
  const auto text = [&](const char* name) -> std::string {
    if (!doc.contains(name) || doc[name].is_null()) return {};
    if (!doc[name].is_string()) throw invalid(fmt::format("{} must be a string", name));
    return doc[name].get<std::string>();
  };
  if (doc.contains("q") && doc["q"].is_array()) {
    f.single = false;
    for (const auto& item : doc["q"]) {
      if (!item.is_string()) throw invalid("q must be a string or a list of strings");
      f.q.push_back(item.get<std::string>());
    }
  } else if (doc.contains("q") && !doc["q"].is_null()) {
    if (!doc["q"].is_string()) throw invalid("q must be a string or a list of strings");
    f.q.push_back(doc["q"].get<std::string>());
  }
  f.source = text("source");
  f.target = text("target");
  f.format = text("format");
  f.apiKey = text("api_key");
  if (doc.contains("alternatives") && !doc["alternatives"].is_null()) {
    const auto& a = doc["alternatives"];
    if (!a.is_number_integer() || a.get<int64_t>() < 0) throw invalid("alternatives must be a whole number, 0 or more");
    f.alternatives = std::to_string(a.get<int64_t>());
  }
  return f;
}

LibreFields fromForm(const std::string& body) {
  const FormFields form(body);
  LibreFields f;
  f.q = form.all("q");
  f.single = f.q.size() <= 1;
  f.source = form.first("source");
  f.target = form.first("target");
  f.format = form.first("format");
  f.alternatives = form.first("alternatives");
  f.apiKey = form.first("api_key");
  return f;
}

}  // namespace

TextTranslationRequest parseLibreTranslateRequest(const std::string& body, bool form, std::size_t maxAlternatives) {
  const LibreFields f = form ? fromForm(body) : fromJson(body);
  bool anyText = false;
  for (const auto& q : f.q) anyText = anyText || !q.empty();
  if (!anyText) throw invalid("missing q parameter");
  if (f.source.empty()) throw invalid("missing source parameter");
  if (f.target.empty()) throw invalid("missing target parameter");
  TextTranslationRequest r;
  r.texts = f.q;
  r.single = f.single;
  r.source = f.source == "auto" ? "" : f.source;
  r.target = f.target;
  if (!f.format.empty() && f.format != "text" && f.format != "html")
    throw invalid(fmt::format("format must be text or html, not {}", f.format));
  r.html = f.format == "html";
  if (!f.alternatives.empty()) {
    std::size_t used = 0;
    unsigned long value = 0;
    try {
      value = std::stoul(f.alternatives, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != f.alternatives.size() || f.alternatives[0] == '-')
      throw invalid("alternatives must be a whole number, 0 or more");
    if (value > maxAlternatives)
      throw invalid(fmt::format("alternatives must be at most {} on this server, got {}", maxAlternatives, value));
    r.alternatives = value;
  }
  r.apiKey = f.apiKey;
  return r;
}

std::string libreTranslateResponse(const TextTranslationRequest& request, const TextTranslationResult& result) {
  json answer;
  const json detected = {{"confidence", 100.0}, {"language", result.source}};
  if (request.single) {
    answer["translatedText"] = result.texts.empty() ? std::string() : result.texts.front();
    if (request.alternatives > 0) answer["alternatives"] = result.alternatives.empty() ? json::array() : json(result.alternatives.front());
    if (result.sourceWasAuto) answer["detectedLanguage"] = detected;
  } else {
    answer["translatedText"] = result.texts;
    if (request.alternatives > 0) answer["alternatives"] = result.alternatives;
    if (result.sourceWasAuto) answer["detectedLanguage"] = json(std::vector<json>(result.texts.size(), detected));
  }
  return answer.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string libreLanguagesResponse(const ServedLanguages& languages) {
  // every language the server reads or writes (clients build both menus from this list), each with
  // the languages it is translated into
  std::vector<std::string> codes = languages.sources();
  for (const auto& code : languages.targets())
    if (std::find(codes.begin(), codes.end(), code) == codes.end()) codes.push_back(code);
  json list = json::array();
  for (const auto& code : codes)
    list.push_back({{"code", code}, {"name", languageName(code)}, {"targets", languages.targetsOf(code)}});
  return list.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace nmt::serve
