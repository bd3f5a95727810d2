#include "serve/ServedLanguages.h"

#include "serve/TranslateRequest.h"

#include <fmt/core.h>

#include <algorithm>
#include <utility>

namespace nmt::serve {
namespace {

void addOnce(std::vector<std::string>& list, const std::string& code) {
  if (std::find(list.begin(), list.end(), code) == list.end()) list.push_back(code);
}

}  // namespace

std::string languageName(const std::string& code) {
  static const std::pair<const char*, const char*> kNames[] = {
      {"af", "Afrikaans"},  {"ar", "Arabic"},     {"az", "Azerbaijani"}, {"be", "Belarusian"}, {"bg", "Bulgarian"},
      {"bn", "Bengali"},    {"bs", "Bosnian"},    {"ca", "Catalan"},     {"cs", "Czech"},      {"cy", "Welsh"},
      {"da", "Danish"},     {"de", "German"},     {"el", "Greek"},       {"en", "English"},    {"eo", "Esperanto"},
      {"es", "Spanish"},    {"et", "Estonian"},   {"eu", "Basque"},      {"fa", "Persian"},    {"fi", "Finnish"},
      {"fil", "Filipino"},  {"fr", "French"},     {"ga", "Irish"},       {"gl", "Galician"},   {"he", "Hebrew"},
      {"hi", "Hindi"},      {"hr", "Croatian"},   {"hu", "Hungarian"},   {"hy", "Armenian"},   {"id", "Indonesian"},
      {"is", "Icelandic"},  {"it", "Italian"},    {"ja", "Japanese"},    {"ka", "Georgian"},   {"kk", "Kazakh"},
      {"ko", "Korean"},     {"lt", "Lithuanian"}, {"lv", "Latvian"},     {"mk", "Macedonian"}, {"ms", "Malay"},
      {"mt", "Maltese"},    {"nb", "Norwegian Bokmål"}, {"nl", "Dutch"}, {"nn", "Norwegian Nynorsk"},
      {"no", "Norwegian"},  {"pl", "Polish"},     {"pt", "Portuguese"},  {"ro", "Romanian"},   {"ru", "Russian"},
      {"sk", "Slovak"},     {"sl", "Slovenian"},  {"sq", "Albanian"},    {"sr", "Serbian"},    {"sv", "Swedish"},
      {"sw", "Swahili"},    {"ta", "Tamil"},      {"th", "Thai"},        {"tr", "Turkish"},    {"uk", "Ukrainian"},
      {"ur", "Urdu"},       {"uz", "Uzbek"},      {"vi", "Vietnamese"},  {"zh", "Chinese"}};
  for (const auto& [known, name] : kNames)
    if (code == known) return name;
  return code;
}

ServedLanguages::ServedLanguages(std::vector<Entry> entries) {
  for (auto& e : entries)
    if (e.languages.known()) entries_.push_back(std::move(e));
}

std::string ServedLanguages::pairsText() const {
  std::string text;
  for (const auto& e : entries_) text += (text.empty() ? "" : ", ") + e.languages.text();
  return text;
}

ServedLanguages::Choice ServedLanguages::choose(const std::string& source, const std::string& target) const {
  if (entries_.empty())
    throw RequestError(400, "no model of this server knows its languages (train with --source-lang and --target-lang, "
                            "or start nmt-serve with --languages)");
  const bool automatic = source.empty() || source == "auto";
  std::vector<const Entry*> into;
  for (const auto& e : entries_)
    if (e.languages.target == target) into.push_back(&e);
  if (into.empty())
    throw RequestError(400, fmt::format("target language {} is not supported (this server translates {})", target,
                                        pairsText()));
  if (automatic) {
    std::vector<std::string> from;
    for (const auto* e : into) addOnce(from, e->languages.source);
    if (from.size() > 1) {
      std::string names;
      for (const auto& f : from) names += (names.empty() ? "" : " and ") + f;
      throw RequestError(400, fmt::format("source language auto: this server translates into {} from {}; name one",
                                          target, names));
    }
    return {into.front()->model, into.front()->languages.source};
  }
  for (const auto* e : into)
    if (e->languages.source == source) return {e->model, source};
  throw RequestError(400, fmt::format("{}-{} is not supported (this server translates {})", source, target, pairsText()));
}

std::vector<std::string> ServedLanguages::sources() const {
  std::vector<std::string> list;
  for (const auto& e : entries_) addOnce(list, e.languages.source);
  return list;
}

std::vector<std::string> ServedLanguages::targets() const {
  std::vector<std::string> list;
  for (const auto& e : entries_) addOnce(list, e.languages.target);
  return list;
}

std::vector<std::string> ServedLanguages::targetsOf(const std::string& source) const {
  std::vector<std::string> list;
  for (const auto& e : entries_)
    if (e.languages.source == source) addOnce(list, e.languages.target);
  return list;
}

}  // namespace nmt::serve
