#include "serve/TranslateRequest.h"

#include "serve/JsonBody.h"

#include "util/InputError.h"
#include "util/Utf8.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>

namespace nmt::serve {
namespace {

using nlohmann::json;

RequestError bad(const std::string& message) { return RequestError(400, message); }

int64_t integerField(const json& value, const char* name, int64_t min, int64_t max) {
  if (!value.is_number_integer()) throw bad(fmt::format("\"{}\" must be an integer", name));
  const auto v = value.get<int64_t>();
  if (v < min || v > max) throw bad(fmt::format("\"{}\" must be between {} and {}, got {}", name, min, max, v));
  return v;
}

double numberField(const json& value, const char* name) {
  if (!value.is_number()) throw bad(fmt::format("\"{}\" must be a number", name));
  return value.get<double>();
}

bool flagField(const json& value, const char* name) {
  if (!value.is_boolean()) throw bad(fmt::format("\"{}\" must be true or false", name));
  return value.get<bool>();
}

// A sentence-like string: no line break, no control character; `where` names it ("text"[2]).
std::string lineField(const json& value, const std::string& where) {
  if (!value.is_string()) throw bad(fmt::format("{} must be a string", where));
  auto s = value.get<std::string>();
  if (s.find_first_of("\r\n") != std::string::npos)
    throw bad(fmt::format("{} contains a line break: send one sentence per entry", where));
  if (const auto problem = controlCharacterProblem(s); !problem.empty()) throw bad(fmt::format("{} has a {}", where, problem));
  return s;
}

}  // namespace

bool RequestGuidance::anyPrefix() const {
  for (const auto& p : prefixes)
    if (!p.empty()) return true;
  return false;
}

TranslateRequest parseTranslateRequest(const std::string& body, const RequestLimits& limits) {
  const json doc = parseJsonObject(body);

  TranslateRequest r;
  bool hasText = false;
  for (const auto& [key, value] : doc.items()) {
    if (key == "text") {
      if (!value.is_array()) throw bad("\"text\" must be an array of strings");
      if (value.size() > limits.maxSentences)
        throw RequestError(413, fmt::format("{} sentences in \"text\", more than this server's limit of {}", value.size(),
                                            limits.maxSentences));
      for (std::size_t i = 0; i < value.size(); ++i) r.texts.push_back(lineField(value[i], fmt::format("\"text\"[{}]", i)));
      hasText = true;
    } else if (key == "prefix") {
      if (!value.is_array()) throw bad("\"prefix\" must be an array of strings, one a sentence (\"\": none)");
      for (std::size_t i = 0; i < value.size() && i <= limits.maxSentences; ++i)
        r.guidance.prefixes.push_back(lineField(value[i], fmt::format("\"prefix\"[{}]", i)));
    } else if (key == "alternatives") {
      r.guidance.alternatives = static_cast<std::size_t>(integerField(value, "alternatives", 0, kMaxAlternatives));
    } else if (key == "sampling_topk") {
      r.decoding.sampling.topk = integerField(value, "sampling_topk", 0, std::numeric_limits<int32_t>::max());
    } else if (key == "sampling_topp") {
      r.decoding.sampling.topp = numberField(value, "sampling_topp");
    } else if (key == "sampling_temperature") {
      r.decoding.sampling.temperature = numberField(value, "sampling_temperature");
    } else if (key == "seed") {
      r.decoding.sampling.seed = static_cast<uint64_t>(integerField(value, "seed", 0, std::numeric_limits<int64_t>::max()));
    } else if (key == "no_repeat_ngram") {
      r.decoding.noRepeatNgram = integerField(value, "no_repeat_ngram", 0, kMaxNgram);
    } else if (key == "glossary") {
      const char* shape = "\"glossary\" must be an object {\"source term\": \"target term\"} or an array of "
                          "[\"source term\", \"target term\"] pairs";
      if (value.is_object()) {
        for (const auto& [source, target] : value.items()) {
          if (!target.is_string()) throw bad(shape);
          r.guidance.glossary.emplace_back(source, target.get<std::string>());
        }
      } else if (value.is_array()) {
        for (const auto& pair : value) {
          if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string()) throw bad(shape);
          r.guidance.glossary.emplace_back(pair[0].get<std::string>(), pair[1].get<std::string>());
        }
      } else {
        throw bad(shape);
      }
    } else if (key == "alignment") {
      r.guidance.alignment.words = flagField(value, "alignment");
    } else if (key == "alignment_threshold") {
      r.guidance.alignment.threshold = numberField(value, "alignment_threshold");
    } else if (key == "replace_unknowns") {
      r.guidance.alignment.replaceUnknowns = flagField(value, "replace_unknowns");
    } else if (key == "model") {
      if (!value.is_string()) throw bad("\"model\" must be a string");
      r.model = value.get<std::string>();
    } else if (key == "beam") {
      r.decoding.beamSize = integerField(value, "beam", 1, limits.maxBeam);
    } else if (key == "nbest") {
      r.decoding.nbest = integerField(value, "nbest", 1, limits.maxBeam);
    } else if (key == "attention") {
      r.decoding.keepAttention = flagField(value, "attention");
    } else if (key == "split_sentences") {
      r.guidance.text.splitSentences = flagField(value, "split_sentences");
    } else if (key == "protect_spans") {
      r.guidance.text.protectSpans = flagField(value, "protect_spans");
    } else if (key == "restore_case") {
      r.guidance.text.restoreCase = flagField(value, "restore_case");
    } else {
      throw bad(fmt::format("unknown field \"{}\" (known: text, model, beam, nbest, attention, prefix, alternatives, "
                            "sampling_topk, sampling_topp, sampling_temperature, seed, no_repeat_ngram, alignment, "
                            "alignment_threshold, replace_unknowns, glossary, split_sentences, protect_spans, "
                            "restore_case)",
                            key));
    }
  }
  if (!hasText) throw bad("missing field \"text\" (an array of sentences)");
  const auto& prefixes = r.guidance.prefixes;
  if (doc.contains("prefix") && prefixes.size() != r.texts.size())
    throw bad(fmt::format("\"prefix\" has {}{} entries for {} sentences in \"text\": give one a sentence (\"\": none)",
                          prefixes.size() > limits.maxSentences ? "more than " : "",
                          std::min(prefixes.size(), limits.maxSentences), r.texts.size()));
  if (r.guidance.alternatives > 0 && r.texts.size() != 1)
    throw bad(fmt::format("\"alternatives\" lists one sentence's: send one in \"text\", not {}", r.texts.size()));
  try {
    checkDecodingOptions(r.decoding);
    checkAlignmentOptions(r.guidance.alignment);
    checkGlossaryUse(doc.contains("glossary"), r.decoding);
  } catch (const OptionError& e) {
    throw bad(e.spelled([](std::string name) {  // as the JSON field: "sampling_topp"
      std::replace(name.begin(), name.end(), '-', '_');
      return "\"" + name + "\"";
    }));
  }
  return r;
}

}  // namespace nmt::serve
