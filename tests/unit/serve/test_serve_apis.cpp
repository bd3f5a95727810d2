// The LibreTranslate and DeepL APIs as mappings of bodies alone: forms, texts cut into sentences and
// put back, the choice of a model by languages, and each API's requests, answers and refusals.
#include "serve/DeepLApi.h"
#include "serve/FormFields.h"
#include "serve/LibreTranslateApi.h"
#include "serve/ServedLanguages.h"
#include "serve/TextSegments.h"
#include "serve/TranslateRequest.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

using namespace nmt;
using namespace nmt::serve;
using nlohmann::json;

namespace {

template <typename Call>
std::pair<int, std::string> refusal(Call&& call) {
  try {
    call();
  } catch (const RequestError& e) {
    return {e.status(), e.what()};
  }
  return {0, ""};
}

// Each sentence "translated" by upper-casing its ASCII letters.
std::vector<std::string> shouted(const std::vector<std::string>& sentences) {
  std::vector<std::string> out;
  for (auto s : sentences) {
    for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    out.push_back(s);
  }
  return out;
}

const ServedLanguages kServed({{"de-en", {"de", "en"}}, {"fr-en", {"fr", "en"}}, {"en-de", {"en", "de"}}, {"old", {}}});

}  // namespace

TEST_CASE("form fields: decoded, in order, names repeated; a malformed escape refused") {
  const FormFields form("text=Ein+Hund&text=%C3%A4%20b&target_lang=EN-US&empty=&flag");
  CHECK(form.all("text") == std::vector<std::string>{"Ein Hund", "ä b"});
  CHECK(form.first("target_lang") == "EN-US");
  CHECK(form.has("empty"));
  CHECK(form.first("empty").empty());
  CHECK(form.has("flag"));
  CHECK_FALSE(form.has("source_lang"));
  CHECK(refusal([] { FormFields("q=a%2"); }) == std::pair<int, std::string>{400, "a malformed %-escape in the form data at byte 4"});
  CHECK(refusal([] { FormFields("q=%FF"); }).second == "the form data is not valid UTF-8 once decoded (near byte 3)");
}

TEST_CASE("text segments: lines and runs between tags translated, everything else kept") {
  const TextSegments plain({"Ein Hund.\nZwei Katzen. ", "", "  \n"}, false);
  CHECK(plain.sentences() == std::vector<std::string>{"Ein Hund.", "Zwei Katzen."});
  CHECK(plain.join(shouted(plain.sentences())) == std::vector<std::string>{"EIN HUND.\nZWEI KATZEN. ", "", "  \n"});
  CHECK(plain.characters() == 21);

  const TextSegments html({R"(<p class="a>b">Ein <b>Hund</b> &amp; eine Katze</p><script>var x = "<b>";</script>)"
                           "<!-- ein Kommentar --><br/>\nKäse &lt;3 &#x41;"},
                          true);
  CHECK(html.sentences() == std::vector<std::string>{"Ein", "Hund", "& eine Katze", "Käse <3 A"});
  CHECK(html.join(shouted(html.sentences())) ==
        std::vector<std::string>{R"(<p class="a>b">EIN <b>HUND</b> &amp; EINE KATZE</p><script>var x = "<b>";</script>)"
                                 "<!-- ein Kommentar --><br/>\nKäSE &lt;3 A"});
  // a '<' that opens no tag is text
  const TextSegments lessThan({"3 < 4 Hunde"}, true);
  CHECK(lessThan.sentences() == std::vector<std::string>{"3 < 4 Hunde"});
  CHECK(lessThan.join({"3 < 4 dogs"}) == std::vector<std::string>{"3 &lt; 4 dogs"});
}

TEST_CASE("served languages: a model by its pair, auto where one source is served into the target") {
  CHECK(kServed.choose("fr", "en").model == "fr-en");
  CHECK(kServed.choose("auto", "de").model == "en-de");
  CHECK(kServed.choose("", "de").source == "en");
  CHECK(refusal([] { kServed.choose("auto", "en"); }) ==
        std::pair<int, std::string>{400, "source language auto: this server translates into en from de and fr; name one"});
  CHECK(refusal([] { kServed.choose("de", "fr"); }).second ==
        "target language fr is not supported (this server translates de-en, fr-en, en-de)");
  CHECK(refusal([] { kServed.choose("fr", "de"); }).second ==
        "fr-de is not supported (this server translates de-en, fr-en, en-de)");
  CHECK(kServed.sources() == std::vector<std::string>{"de", "fr", "en"});
  CHECK(kServed.targets() == std::vector<std::string>{"en", "de"});
  CHECK(refusal([] { ServedLanguages(std::vector<ServedLanguages::Entry>{{"old", {}}}).choose("de", "en"); }).second ==
        "no model of this server knows its languages (train with --source-lang and --target-lang, or start nmt-serve "
        "with --languages)");
  CHECK(languageName("de") == "German");
  CHECK(languageName("xq") == "xq");
}

TEST_CASE("LibreTranslate: q as a string or a list, JSON or form; its refusals") {
  auto r = parseLibreTranslateRequest(R"({"q": "Ein Hund", "source": "auto", "target": "en", "format": "html",
                                          "alternatives": 2, "api_key": "k1", "secret": "ignored"})",
                                      false, 5);
  CHECK(r.texts == std::vector<std::string>{"Ein Hund"});
  CHECK(r.single);
  CHECK(r.source.empty());
  CHECK(r.target == "en");
  CHECK(r.html);
  CHECK(r.alternatives == 2);
  CHECK(r.apiKey == "k1");
  r = parseLibreTranslateRequest(R"({"q": ["a", "b"], "source": "de", "target": "en"})", false, 5);
  CHECK_FALSE(r.single);
  CHECK(r.texts.size() == 2);
  CHECK_FALSE(r.html);
  r = parseLibreTranslateRequest("q=Ein+Hund&source=de&target=en&alternatives=1&api_key=k2", true, 5);
  CHECK(r.texts == std::vector<std::string>{"Ein Hund"});
  CHECK(r.source == "de");
  CHECK(r.alternatives == 1);
  CHECK(r.apiKey == "k2");

  const auto refused = [](const std::string& body, bool form = false) {
    return refusal([&] { parseLibreTranslateRequest(body, form, 5); });
  };
  CHECK(refused(R"({"source": "de", "target": "en"})") == std::pair<int, std::string>{400, "Invalid request: missing q parameter"});
  CHECK(refused(R"({"q": "", "source": "de", "target": "en"})").second == "Invalid request: missing q parameter");
  CHECK(refused(R"({"q": "a", "target": "en"})").second == "Invalid request: missing source parameter");
  CHECK(refused("q=a&source=de", true).second == "Invalid request: missing target parameter");
  CHECK(refused(R"({"q": "a", "source": "de", "target": "en", "format": "pdf"})").second ==
        "Invalid request: format must be text or html, not pdf");
  CHECK(refused(R"({"q": "a", "source": "de", "target": "en", "alternatives": 6})").second ==
        "Invalid request: alternatives must be at most 5 on this server, got 6");
  CHECK(refused("q=a&source=de&target=en&alternatives=-1", true).second ==
        "Invalid request: alternatives must be a whole number, 0 or more");
  CHECK(refused(R"({"q": [1], "source": "de", "target": "en"})").second ==
        "Invalid request: q must be a string or a list of strings");
  CHECK(refused(R"({"q": "a")").second == "Invalid request: invalid JSON at byte 10");
}

TEST_CASE("LibreTranslate: answers in its shapes; /languages lists every language with its targets") {
  TextTranslationRequest single;
  single.single = true;
  single.alternatives = 2;
  TextTranslationResult result{{"A dog"}, {{"One dog", "The dog"}}, "de", true};
  CHECK(json::parse(libreTranslateResponse(single, result)) ==
        json({{"translatedText", "A dog"},
              {"alternatives", {"One dog", "The dog"}},
              {"detectedLanguage", {{"confidence", 100.0}, {"language", "de"}}}}));
  TextTranslationRequest list;
  TextTranslationResult two{{"A dog", "A cat"}, {}, "de", false};
  CHECK(json::parse(libreTranslateResponse(list, two)) == json({{"translatedText", {"A dog", "A cat"}}}));
  CHECK(json::parse(libreLanguagesResponse(kServed)) ==
        json::parse(R"([{"code": "de", "name": "German", "targets": ["en"]},
                        {"code": "fr", "name": "French", "targets": ["en"]},
                        {"code": "en", "name": "English", "targets": ["de"]}])"));
}

TEST_CASE("DeepL: text lists from JSON or forms, codes in either case and without their region; its shapes") {
  auto r = parseDeepLRequest(R"({"text": ["Ein Hund", "Eine Katze"], "target_lang": "EN-US", "source_lang": "de",
                                 "tag_handling": "html", "formality": "less"})",
                             false);
  CHECK(r.texts == std::vector<std::string>{"Ein Hund", "Eine Katze"});
  CHECK(r.target == "en");
  CHECK(r.source == "de");
  CHECK(r.html);
  r = parseDeepLRequest("text=Ein+Hund&text=Zwei&target_lang=en-gb&auth_key=k", true);
  CHECK(r.texts.size() == 2);
  CHECK(r.target == "en");
  CHECK(r.source.empty());
  CHECK(r.apiKey == "k");
  CHECK(refusal([] { parseDeepLRequest(R"({"target_lang": "EN"})", false); }) ==
        std::pair<int, std::string>{400, "Parameter 'text' not specified."});
  CHECK(refusal([] { parseDeepLRequest(R"({"text": ["a"]})", false); }).second == "Value for 'target_lang' not supported.");
  CHECK(refusal([] { parseDeepLRequest(R"({"text": ["a"], "target_lang": "ENGLISH"})", false); }).second ==
        "Value for 'target_lang' not supported: ENGLISH");
  CHECK(refusal([] { parseDeepLRequest(R"({"text": "a", "target_lang": "EN"})", false); }).second ==
        "Value for 'text' must be a list of strings");

  CHECK(json::parse(deeplTranslateResponse({{"A dog"}, {}, "de", true})) ==
        json::parse(R"({"translations": [{"detected_source_language": "DE", "text": "A dog"}]})"));
  CHECK(json::parse(deeplLanguagesResponse(kServed, "target")) ==
        json::parse(R"([{"language": "EN", "name": "English", "supports_formality": false},
                        {"language": "DE", "name": "German", "supports_formality": false}])"));
  CHECK(json::parse(deeplLanguagesResponse(kServed, "")) == json::parse(deeplLanguagesResponse(kServed, "source")));
  CHECK(refusal([] { deeplLanguagesResponse(kServed, "both"); }).second ==
        "Value for 'type' not supported: both (source or target)");
  CHECK(json::parse(deeplUsageResponse(12, 500)) == json({{"character_count", 12}, {"character_limit", 500}}));
  CHECK(deeplError("Quota Exceeded") == R"({"message":"Quota Exceeded"})");
}
