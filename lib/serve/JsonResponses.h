#pragma once

#include "serve/ServedTranslation.h"

#include <string>
#include <vector>

namespace nmt::serve {

// The body of a /v1/translate answer:
// {"translations": [{"text", "score", "source_pieces", "target_pieces", ["prefix_pieces"], ["attention"],
//  ["alignment"], ["nbest"], ["missing_terms"], ["warning"]}], "model": ..., "elapsed_ms": ...}. "nbest" (every hypothesis,
// best first) appears when more than one was asked for, "attention" and "alignment" ([[source word,
// target word], ...]) when asked for, "prefix_pieces" when a prefix was given, "missing_terms" when a
// glossary term could not be met, "warning" when there is one. With `alternatives`: [{"source_pieces", "alternatives": [{"piece", "log_probability", "text",
// "score", "target_pieces", "prefix_pieces"}]}] instead.
std::string translateResponse(const std::vector<ServedTranslation>& translations, bool attention, std::size_t nbest,
                              const std::string& model, double elapsedMs, bool alternatives = false);

// {"error": message}
std::string errorResponse(const std::string& message);

// One served model, for GET /v1/models (no directory: a path on the host is no client's business).
struct ModelInfo {
  std::string name, sourceLanguage, targetLanguage;  // codes; "" unknown (null in the answer)
  std::string encoder, decoder, cell;  // rnn or transformer each; cell (gru or lstm) only with an rnn part
  std::size_t maxInputPieces = 0;  // source pieces read of a sentence (the rest is cut)
  bool shortlist = false;          // each sentence scores only its own shortlist
  bool int8 = false;               // the output layer runs in int8
};
std::string modelsResponse(const std::vector<ModelInfo>& models);

// Counters of the batching queue, for GET /health.
struct ServeCounters {
  std::size_t requests = 0, sentences = 0, batches = 0, largestBatch = 0;
  std::size_t queued = 0;  // sentences waiting for a batch now (not in /health's answer)
};
std::string healthResponse(const ServeCounters& counters);

}  // namespace nmt::serve
