#include "serve/JsonResponses.h"

#include <nlohmann/json.hpp>

namespace nmt::serve {

using nlohmann::json;

namespace {

// The pieces and any text are UTF-8 already (checked on the way in); replace rather than throw
// should a model ever produce a broken piece.
std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace

std::string translateResponse(const std::vector<ServedTranslation>& translations, bool attention, std::size_t nbest,
                              const std::string& model, double elapsedMs, bool alternatives) {
  json list = json::array();
  for (const auto& t : translations) {
    json item;
    if (alternatives) {
      json all = json::array();
      for (const auto& a : t.alternatives)
        all.push_back({{"piece", a.piece},
                       {"log_probability", a.logProbability},
                       {"text", a.translation.text},
                       {"score", a.translation.score},
                       {"target_pieces", a.translation.pieces},
                       {"prefix_pieces", a.translation.prefixPieces}});
      list.push_back({{"source_pieces", t.sourcePieces}, {"alternatives", std::move(all)}});
      continue;
    }
    const ServedHypothesis empty;
    const auto& best = t.hypotheses.empty() ? empty : t.hypotheses.front();
    item["text"] = best.text;
    item["score"] = best.score;
    item["source_pieces"] = t.sourcePieces;
    item["target_pieces"] = best.pieces;
    if (best.prefixPieces > 0) item["prefix_pieces"] = best.prefixPieces;
    if (attention) item["attention"] = t.attention;
    if (t.aligned) {
      json pairs = json::array();
      for (const auto& [source, target] : t.alignment) pairs.push_back({source, target});
      item["alignment"] = std::move(pairs);
    }
    if (nbest > 1) {
      json all = json::array();
      for (const auto& h : t.hypotheses)
        all.push_back({{"text", h.text}, {"score", h.score}, {"target_pieces", h.pieces}});
      item["nbest"] = std::move(all);
    }
    if (!t.missingTerms.empty()) item["missing_terms"] = t.missingTerms;
    if (!t.warning.empty()) item["warning"] = t.warning;
    list.push_back(std::move(item));
  }
  return dump({{"translations", std::move(list)}, {"model", model}, {"elapsed_ms", elapsedMs}});
}

std::string errorResponse(const std::string& message) { return dump({{"error", message}}); }

std::string modelsResponse(const std::vector<ModelInfo>& models) {
  json list = json::array();
  for (std::size_t i = 0; i < models.size(); ++i) {
    const auto& m = models[i];
    const auto code = [](const std::string& c) { return c.empty() ? json(nullptr) : json(c); };
    json entry = {{"name", m.name},
                  {"source_language", code(m.sourceLanguage)},
                  {"target_language", code(m.targetLanguage)},
                  {"encoder", m.encoder},
                  {"decoder", m.decoder},
                  {"max_input_pieces", m.maxInputPieces},
                  {"shortlist", m.shortlist},
                  {"int8", m.int8},
                  {"default", i == 0}};
    if (m.encoder == "rnn" || m.decoder == "rnn") entry["cell"] = m.cell;
    list.push_back(std::move(entry));
  }
  return dump({{"models", std::move(list)}});
}

std::string healthResponse(const ServeCounters& c) {
  return dump({{"status", "ok"},
               {"requests", c.requests},
               {"sentences", c.sentences},
               {"batches", c.batches},
               {"largest_batch", c.largestBatch}});
}

}  // namespace nmt::serve
