#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace nmt::serve {

// What a server accepts, set by its options; a request beyond them is refused, not cut.
struct RequestLimits {
  std::size_t maxRequestBytes = 1 << 20;  // body size (httplib refuses larger bodies itself, with 413)
  std::size_t maxSentences = 64;          // entries of "text"
  int maxBeam = 10;                       // "beam"
};

// A POST /v1/translate body: {"text": [...], "model": "...", "beam": K, "nbest": N, "attention": bool}.
struct TranslateRequest {
  std::vector<std::string> texts;  // one sentence each, UTF-8, no line breaks
  std::string model;               // empty: the server's first model
  int beam = 1;                    // 1: greedy search
  int nbest = 1;                   // hypotheses per sentence, at most beam
  bool attention = false;          // return the best hypothesis' attention matrix
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
// `limits`. Throws RequestError (400, or 413 for too many sentences) naming the problem; byte
// positions count from 1.
TranslateRequest parseTranslateRequest(const std::string& body, const RequestLimits& limits);

}  // namespace nmt::serve
