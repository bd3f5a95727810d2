#include "serve/TranslateRequest.h"

#include "util/InputError.h"
#include "util/Utf8.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

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

}  // namespace

TranslateRequest parseTranslateRequest(const std::string& body, const RequestLimits& limits) {
  if (const auto at = firstInvalidUtf8(body)) throw bad(fmt::format("the request body is not valid UTF-8 (byte {})", *at + 1));
  json doc;
  try {
    doc = json::parse(body);
  } catch (const json::parse_error& e) {
    throw bad(fmt::format("invalid JSON at byte {}", e.byte));
  }
  if (!doc.is_object()) throw bad("the request must be a JSON object");

  TranslateRequest r;
  bool hasText = false;
  for (const auto& [key, value] : doc.items()) {
    if (key == "text") {
      if (!value.is_array()) throw bad("\"text\" must be an array of strings");
      if (value.size() > limits.maxSentences)
        throw RequestError(413, fmt::format("{} sentences in \"text\", more than this server's limit of {}", value.size(),
                                            limits.maxSentences));
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (!value[i].is_string()) throw bad(fmt::format("\"text\"[{}] must be a string", i));
        auto s = value[i].get<std::string>();
        if (s.find_first_of("\r\n") != std::string::npos)
          throw bad(fmt::format("\"text\"[{}] contains a line break: send one sentence per entry", i));
        if (const auto problem = controlCharacterProblem(s); !problem.empty())
          throw bad(fmt::format("\"text\"[{}] has a {}", i, problem));
        r.texts.push_back(std::move(s));
      }
      hasText = true;
    } else if (key == "model") {
      if (!value.is_string()) throw bad("\"model\" must be a string");
      r.model = value.get<std::string>();
    } else if (key == "beam") {
      r.decoding.beamSize = integerField(value, "beam", 1, limits.maxBeam);
    } else if (key == "nbest") {
      r.decoding.nbest = integerField(value, "nbest", 1, limits.maxBeam);
    } else if (key == "attention") {
      if (!value.is_boolean()) throw bad("\"attention\" must be true or false");
      r.decoding.keepAttention = value.get<bool>();
    } else {
      throw bad(fmt::format("unknown field \"{}\" (known: text, model, beam, nbest, attention)", key));
    }
  }
  if (!hasText) throw bad("missing field \"text\" (an array of sentences)");
  try {
    checkDecodingOptions(r.decoding);
  } catch (const OptionError& e) {
    throw bad(e.spelled([](const std::string& name) { return "\"" + name + "\""; }));
  }
  return r;
}

}  // namespace nmt::serve
