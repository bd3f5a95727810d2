#pragma once

#include "decode/DecodingOptions.h"
#include "text/TextOptions.h"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace nmt::serve {

// What a server accepts, set by its options; a request beyond them is refused, not cut.
struct RequestLimits {
  std::size_t maxRequestBytes = 1 << 20;  // body size (httplib refuses larger bodies itself, with 413)
  std::size_t maxSentences = 64;          // entries of "text"
  int64_t maxBeam = 10;                   // "beam" (at most kMaxBeam)
};

// What a request asks beyond its search: each sentence's prefix, word alignments, alternatives.
struct RequestGuidance {
  std::vector<std::string> prefixes;  // "prefix": one a sentence ("" none), or none at all
  AlignmentOptions alignment;         // "alignment", "alignment_threshold", "replace_unknowns"
  std::size_t alternatives = 0;       // "alternatives": N pieces after the one sentence's prefix (0: translate)
  std::vector<std::pair<std::string, std::string>> glossary;  // "glossary": (source term, target term) entries
  // "split_sentences", "protect_spans", "restore_case" (each true unless false); none for a sentence with
  // a prefix, or with alternatives: those go whole
  text::TextOptions text;

  bool anyPrefix() const;
};

// A POST /v1/translate body: {"text": [...], "model": "...", "beam": K, "nbest": N, "attention": bool,
// "prefix": [...], "alternatives": N, "sampling_topk": K, "sampling_topp": P, "sampling_temperature": T,
// "seed": S, "no_repeat_ngram": N, "alignment": bool, "alignment_threshold": T, "replace_unknowns": bool,
// "glossary": {"source term": "target term", ...} or [["source term", "target term"], ...],
// "split_sentences": bool, "protect_spans": bool, "restore_case": bool}.
struct TranslateRequest {
  std::vector<std::string> texts;  // one sentence each, UTF-8, no line breaks
  std::string model;               // empty: the server's first model
  // what the request chooses of its search: beamSize ("beam", 1: greedy search), nbest (hypotheses per
  // sentence, at most the beam) and keepAttention ("attention": the best hypothesis' attention matrix);
  // the rest is the server's; and sampling and noRepeatNgram
  DecodingOptions decoding;
  RequestGuidance guidance;
};

// A request the server refuses: the HTTP status (4xx) and a one-line message for the JSON error.
class RequestError : public std::runtime_error {
 public:
  RequestError(int status, const std::string& message) : std::runtime_error(message), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

// Parses and checks a body: UTF-8, JSON, an object with known fields of the right types, within
// `limits`, its search as checkDecodingOptions checks every front end's. Throws RequestError (400, or
// 413 for too many sentences) naming the problem, fields quoted ("nbest"); byte positions count from 1.
TranslateRequest parseTranslateRequest(const std::string& body, const RequestLimits& limits);

}  // namespace nmt::serve
