#include "TestSupport.h"
#include "serve/BatchPicking.h"
#include "serve/JsonResponses.h"
#include "serve/TranslateRequest.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

using namespace nmt::serve;
using nlohmann::json;

namespace {

// The status and message a body is refused with; {0, ""} when it is accepted.
std::pair<int, std::string> refusal(const std::string& body, RequestLimits limits = {}) {
  try {
    parseTranslateRequest(body, limits);
  } catch (const RequestError& e) {
    return {e.status(), e.what()};
  }
  return {0, ""};
}

}  // namespace

TEST_CASE("a translate request: every field read, defaults where absent") {
  const auto r = parseTranslateRequest(R"({"text": ["Ein Hund.", "", "Zwei Katzen"], "model": "de-en", "beam": 4,
                                            "nbest": 2, "attention": true})",
                                       {});
  CHECK(r.texts == std::vector<std::string>{"Ein Hund.", "", "Zwei Katzen"});
  CHECK(r.model == "de-en");
  CHECK(r.decoding.beamSize == 4);
  CHECK(r.decoding.nbest == 2);
  CHECK(r.decoding.keepAttention);
  const auto d = parseTranslateRequest(R"({"text": ["Grüße"]})", {});
  CHECK(d.texts == std::vector<std::string>{"Grüße"});
  CHECK(d.model.empty());
  CHECK(d.decoding.beamSize == 1);
  CHECK(d.decoding.nbest == 1);
  CHECK_FALSE(d.decoding.keepAttention);
  CHECK(parseTranslateRequest(R"({"text": []})", {}).texts.empty());
}

TEST_CASE("a bad translate request is refused with its status and a message naming the problem") {
  using R = std::pair<int, std::string>;
  CHECK(refusal("{\"text\": [\"\xff\"]}") == R{400, "the request body is not valid UTF-8 (byte 12)"});
  CHECK(refusal(R"({"text": ["a")") == R{400, "invalid JSON at byte 14"});
  CHECK(refusal("") == R{400, "invalid JSON at byte 1"});
  CHECK(refusal(R"(["a"])") == R{400, "the request must be a JSON object"});
  CHECK(refusal(R"({"beam": 2})") == R{400, "missing field \"text\" (an array of sentences)"});
  CHECK(refusal(R"({"text": "a"})") == R{400, "\"text\" must be an array of strings"});
  CHECK(refusal(R"({"text": ["a", 3]})") == R{400, "\"text\"[1] must be a string"});
  CHECK(refusal(R"({"text": ["a\nb"]})") == R{400, "\"text\"[0] contains a line break: send one sentence per entry"});
  // a NUL would cut the pieces at the SentencePiece bridge: control characters are refused, tab is not
  CHECK(refusal(R"({"text": ["ok", "Ein\u0000Hund"]})") ==
        R{400, "\"text\"[1] has a control character U+0000 at byte 4 (only tab is allowed)"});
  CHECK(refusal(R"({"text": ["a\u007f"]})") == R{400, "\"text\"[0] has a control character U+007F at byte 2 (only tab is allowed)"});
  CHECK(refusal(R"({"text": ["a\tb"]})") == R{0, ""});
  CHECK(refusal(R"({"text": ["a"], "beem": 2})") ==
        R{400, "unknown field \"beem\" (known: text, model, beam, nbest, attention, prefix, alternatives, sampling_topk, "
               "sampling_topp, sampling_temperature, seed, no_repeat_ngram, alignment, alignment_threshold, "
               "replace_unknowns, glossary, split_sentences, protect_spans, restore_case)"});
  CHECK(refusal(R"({"text": ["a"], "beam": 11})") == R{400, "\"beam\" must be between 1 and 10, got 11"});
  CHECK(refusal(R"({"text": ["a"], "beam": 0})") == R{400, "\"beam\" must be between 1 and 10, got 0"});
  CHECK(refusal(R"({"text": ["a"], "beam": 2.5})") == R{400, "\"beam\" must be an integer"});
  CHECK(refusal(R"({"text": ["a"], "beam": 2, "nbest": 3})") == R{400, "\"nbest\" 3 needs \"beam\" 3 or more"});
  CHECK(refusal(R"({"text": ["a"], "attention": 1})") == R{400, "\"attention\" must be true or false"});
  CHECK(refusal(R"({"text": ["a"], "model": 1})") == R{400, "\"model\" must be a string"});
  RequestLimits two;
  two.maxSentences = 2;
  CHECK(refusal(R"({"text": ["a", "b", "c"]})", two) == R{413, "3 sentences in \"text\", more than this server's limit of 2"});
  CHECK(refusal(R"({"text": ["a", "b"]})", two) == R{0, ""});
}

TEST_CASE("a translate request's prefixes, alternatives, sampling, repeats and alignments: read, and refused when wrong") {
  const auto r = parseTranslateRequest(
      R"({"text": ["a", "b"], "prefix": ["x y", ""], "sampling_topk": 0, "sampling_topp": 0.9,
          "sampling_temperature": 0.7, "seed": 42, "no_repeat_ngram": 3, "alignment": true,
          "alignment_threshold": 0.2, "replace_unknowns": true})",
      {});
  CHECK(r.guidance.prefixes == std::vector<std::string>{"x y", ""});
  CHECK(r.guidance.anyPrefix());
  CHECK(r.decoding.sampling.topk == 0);
  CHECK(r.decoding.sampling.topp == 0.9);
  CHECK(r.decoding.sampling.temperature == 0.7);
  CHECK(r.decoding.sampling.seed == 42);
  CHECK(r.decoding.noRepeatNgram == 3);
  CHECK(r.guidance.alignment.words);
  CHECK(r.guidance.alignment.threshold == 0.2);
  CHECK(r.guidance.alignment.replaceUnknowns);
  CHECK(parseTranslateRequest(R"({"text": ["a"], "prefix": ["x"], "alternatives": 4})", {}).guidance.alternatives == 4);
  CHECK_FALSE(parseTranslateRequest(R"({"text": ["a"], "prefix": [""]})", {}).guidance.anyPrefix());
  using R = std::pair<int, std::string>;
  CHECK(refusal(R"({"text": ["a", "b"], "prefix": ["x"]})") ==
        R{400, "\"prefix\" has 1 entries for 2 sentences in \"text\": give one a sentence (\"\": none)"});
  CHECK(refusal(R"({"text": ["a"], "prefix": "x"})") ==
        R{400, "\"prefix\" must be an array of strings, one a sentence (\"\": none)"});
  CHECK(refusal(R"({"text": ["a"], "prefix": ["x\ny"]})") ==
        R{400, "\"prefix\"[0] contains a line break: send one sentence per entry"});
  CHECK(refusal(R"({"text": ["a", "b"], "alternatives": 3})") ==
        R{400, "\"alternatives\" lists one sentence's: send one in \"text\", not 2"});
  CHECK(refusal(R"({"text": ["a"], "alternatives": 101})") == R{400, "\"alternatives\" must be between 0 and 100, got 101"});
  CHECK(refusal(R"({"text": ["a"], "sampling_topp": 0.5})") ==
        R{400, "\"sampling_topp\" changes nothing without sampling: set \"sampling_topk\" to 0 (the whole "
               "distribution) or above 1"});
  CHECK(refusal(R"({"text": ["a"], "sampling_topk": 3, "beam": 2})") == R{0, ""});  // sampled beam candidates
  CHECK(refusal(R"({"text": ["a"], "sampling_topk": 0, "sampling_temperature": "hot"})") ==
        R{400, "\"sampling_temperature\" must be a number"});
  CHECK(refusal(R"({"text": ["a"], "seed": -1})") ==
        R{400, "\"seed\" must be between 0 and 9223372036854775807, got -1"});
  CHECK(refusal(R"({"text": ["a"], "no_repeat_ngram": 300})") == R{400, "\"no_repeat_ngram\" must be between 0 and 256, got 300"});
  CHECK(refusal(R"({"text": ["a"], "alignment": "yes"})") == R{400, "\"alignment\" must be true or false"});
  CHECK(refusal(R"({"text": ["a"], "alignment": true, "alignment_threshold": 1.5})") ==
        R{400, "\"alignment_threshold\" must be a number from 0 (the most attended piece) to 1, not 1.5"});
  CHECK(parseTranslateRequest(R"({"text": ["a"], "beam": 5, "glossary": {"Hund": "dog", "Katze": "cat"}})", {})
            .guidance.glossary == std::vector<std::pair<std::string, std::string>>{{"Hund", "dog"}, {"Katze", "cat"}});
  CHECK(parseTranslateRequest(R"({"text": ["a"], "beam": 5, "glossary": [["Hund", "dog"]]})", {}).guidance.glossary.size() == 1);
  CHECK(refusal(R"({"text": ["a"], "glossary": {"Hund": "dog"}})") ==
        R{400, "\"glossary\" needs beam search: set \"beam\" 2 or more (5 is usual)"});
  const std::string shape = "\"glossary\" must be an object {\"source term\": \"target term\"} or an array of "
                            "[\"source term\", \"target term\"] pairs";
  CHECK(refusal(R"({"text": ["a"], "beam": 5, "glossary": [["Hund"]]})") == R{400, shape});
  CHECK(refusal(R"({"text": ["a"], "beam": 5, "glossary": {"Hund": 1}})") == R{400, shape});
  CHECK(refusal(R"({"text": ["a"], "beam": 5, "glossary": "Hund"})") == R{400, shape});
  // a huge "prefix" array is not read past the server's sentence limit
  RequestLimits two;
  two.maxSentences = 2;
  CHECK(refusal(R"({"text": ["a"], "prefix": ["", "", "", "", ""]})", two) ==
        R{400, "\"prefix\" has more than 2 entries for 1 sentences in \"text\": give one a sentence (\"\": none)"});
}

TEST_CASE("a translate answer: a prefix's pieces, the alignment, and alternatives instead of a translation") {
  ServedTranslation t;
  t.sourcePieces = {"▁Hund", "</s>"};
  t.hypotheses = {{"the dog", -0.5, {"▁the", "▁dog", "</s>"}, 1}};
  t.aligned = true;
  t.alignment = {{0, 1}};
  const auto item = json::parse(translateResponse({t}, false, 1, "m", 1))["translations"][0];
  CHECK(item["prefix_pieces"] == 1);
  CHECK(item["alignment"] == json::parse("[[0, 1]]"));
  ServedTranslation alternatives;
  alternatives.sourcePieces = {"▁Hund", "</s>"};
  alternatives.alternatives = {{"▁dog", -0.1, {"dog", -0.3, {"▁dog", "</s>"}, 1}}};
  const auto listed = json::parse(translateResponse({alternatives}, false, 1, "m", 1, true))["translations"][0];
  CHECK_FALSE(listed.contains("text"));
  CHECK(listed["source_pieces"] == json({"▁Hund", "</s>"}));
  REQUIRE(listed["alternatives"].size() == 1);
  CHECK(listed["alternatives"][0] == json({{"piece", "▁dog"}, {"log_probability", -0.1}, {"text", "dog"}, {"score", -0.3},
                                          {"target_pieces", {"▁dog", "</s>"}}, {"prefix_pieces", 1}}));
  const auto plain = json::parse(translateResponse({t}, false, 1, "m", 1))["translations"][0];
  t.aligned = false;
  t.hypotheses[0].prefixPieces = 0;
  const auto neither = json::parse(translateResponse({t}, false, 1, "m", 1))["translations"][0];
  CHECK_FALSE(neither.contains("alignment"));
  CHECK_FALSE(neither.contains("prefix_pieces"));
  CHECK(plain.contains("alignment"));
}

TEST_CASE("a translate answer: best hypothesis first-class, n-best, attention and warning only when there") {
  ServedTranslation t;
  t.sourcePieces = {"▁Hund", "</s>"};
  t.hypotheses = {{"dog", -0.5, {"▁dog", "</s>"}}, {"hound", -1.25, {"▁hound", "</s>"}}};
  t.attention = {{0.75f, 0.25f}, {0.5f, 0.5f}};
  ServedTranslation empty;
  empty.sourcePieces = {"</s>"};
  empty.warning = "120 pieces, truncated to the model's maximum of 100";

  const auto plain = json::parse(translateResponse({t, empty}, false, 1, "de-en", 12.5));
  CHECK(plain["model"] == "de-en");
  CHECK(plain["elapsed_ms"] == 12.5);
  REQUIRE(plain["translations"].size() == 2);
  const auto& first = plain["translations"][0];
  CHECK(first["text"] == "dog");
  CHECK(first["score"] == -0.5);
  CHECK(first["source_pieces"] == json({"▁Hund", "</s>"}));
  CHECK(first["target_pieces"] == json({"▁dog", "</s>"}));
  CHECK_FALSE(first.contains("attention"));
  CHECK_FALSE(first.contains("nbest"));
  CHECK_FALSE(first.contains("warning"));
  const auto& second = plain["translations"][1];
  CHECK(second["text"] == "");
  CHECK(second["target_pieces"] == json::array());
  CHECK(second["warning"] == "120 pieces, truncated to the model's maximum of 100");

  const auto full = json::parse(translateResponse({t}, true, 2, "de-en", 1));
  const auto& item = full["translations"][0];
  CHECK(item["attention"] == json({{0.75, 0.25}, {0.5, 0.5}}));
  REQUIRE(item["nbest"].size() == 2);
  CHECK(item["nbest"][1]["text"] == "hound");
  CHECK(item["nbest"][1]["score"] == -1.25);
  CHECK(item["nbest"][1]["target_pieces"] == json({"▁hound", "</s>"}));
}

TEST_CASE("models, health and error answers") {
  CHECK(json::parse(errorResponse("\"beam\" too large")) == json({{"error", "\"beam\" too large"}}));
  const auto models =
      json::parse(modelsResponse({{"a", "de", "en", "rnn", "rnn", "gru", 100, false, false},
                                  {"b", "", "", "transformer", "transformer", "gru", 0, true, true}}));
  REQUIRE(models["models"].size() == 2);
  CHECK(models["models"][0] == json({{"name", "a"}, {"source_language", "de"}, {"target_language", "en"},
                                     {"encoder", "rnn"}, {"decoder", "rnn"}, {"cell", "gru"}, {"max_input_pieces", 100},
                                     {"shortlist", false}, {"int8", false}, {"default", true}}));
  CHECK(models["models"][1]["default"] == false);
  CHECK(models["models"][1]["decoder"] == "transformer");
  CHECK(models["models"][1]["source_language"] == nullptr);
  CHECK_FALSE(models["models"][1].contains("cell"));  // a full Transformer has no recurrent cell
  CHECK_FALSE(models["models"][1].contains("directory"));
  CHECK(models["models"][1]["shortlist"] == true);
  CHECK(models["models"][1]["int8"] == true);
  const auto health = json::parse(healthResponse({3, 7, 2, 5}));
  CHECK(health == json({{"status", "ok"}, {"requests", 3}, {"sentences", 7}, {"batches", 2}, {"largest_batch", 5}}));
}

TEST_CASE("a batch: everything when it fits, else the oldest and the sentences closest to it in length") {
  using V = std::vector<std::size_t>;
  CHECK(pickSimilarLengths({40, 5, 90}, 3) == V{0, 1, 2});
  CHECK(pickSimilarLengths({}, 3).empty());
  CHECK(pickSimilarLengths({10, 100, 12, 95, 11, 60}, 3) == V{0, 2, 4});
  CHECK(pickSimilarLengths({100, 10, 98, 12, 103}, 2) == V{0, 2});
  CHECK(pickSimilarLengths({50, 40, 60, 45}, 2) == V{0, 3});
  CHECK(pickSimilarLengths({50, 40, 60}, 2) == V{0, 1});  // equally close: the earlier one
  CHECK(pickSimilarLengths({7, 7, 7}, 1) == V{0});
}
