#pragma once

#include "data/EncodedCorpus.h"
#include "decode/BeamSearch.h"
#include "decode/DecodeLimits.h"
#include "decode/GreedySearch.h"
#include "decode/TranslationModel.h"

#include <string>
#include <vector>

namespace nmt {

struct TranslatorOptions {
  BeamOptions beam{1, 1, 1.0};  // beamSize 1: batched greedy search
  // sentences per batch, sorted by length first (beam search: K rows each); greedy search with
  // the RNN decoder keeps one batch of this many rows running, refilled as sentences end
  std::size_t batchSize = 64;
  DecodeLimits limits;         // translation length limits
  bool keepAttention = false;  // fill Translation::attention for the best hypothesis
};

struct Translation {
  std::vector<int> sourceIds;             // the BPE ids read (after truncation), without </s>
  std::vector<std::string> sourcePieces;  // the same as pieces, then "</s>"
  std::vector<Hypothesis> hypotheses;     // best first (one unless nbest > 1); none for an empty input
  std::vector<std::string> texts;         // each hypothesis decoded to text
  std::size_t inputPieces = 0;            // pieces before truncation
  bool truncated = false;                 // the input had more than the model's maximum
  // the best hypothesis' attention [its pieces (+ </s>), source pieces + 1], when asked for
  at::Tensor attention;
};

// Text in, text out: BPE-encodes sentences, decodes them (batched greedy, or beam search),
// and turns the pieces back into text, in input order. An empty line gives an empty
// translation. Runs under inference mode.
class Translator {
 public:
  Translator(TranslationModel& model, TranslatorOptions options, c10::Device device);

  std::vector<Translation> translate(const std::vector<std::string>& sentences);
  // Forced decoding: each sentence with its given translation (line-aligned). The one hypothesis
  // is the reference's BPE ids with their log-probability; attention is always filled.
  std::vector<Translation> align(const std::vector<std::string>& sentences, const std::vector<std::string>& references);
  // Target pieces of a hypothesis, with "</s>" when it was produced.
  std::vector<std::string> targetPieces(const Hypothesis& hypothesis) const;
  // BPE-encodes one sentence into t's source fields (truncated to the model's maximum) and returns
  // its ids, for callers that decode themselves (the server's running batch); empty for an empty line.
  std::vector<int> readSource(const std::string& sentence, Translation& t) const;
  // A greedy hypothesis into t, with its text (and its attention when keepAttention).
  void takeGreedy(Translation& t, Hypothesis hypothesis) const;

 private:
  // BPE-encodes and truncates the sentences; returns the indices of the non-empty ones.
  std::vector<std::size_t> readSources(const std::vector<std::string>& sentences, std::vector<Translation>& out,
                                       std::vector<EncodedPair>& sources) const;
  // Greedy search with the RNN decoder: one running batch of batchSize rows that ended
  // sentences leave and the next ones (in `todo` order) join.
  void translateGreedyContinuously(const std::vector<std::size_t>& todo, const std::vector<EncodedPair>& sources,
                                   std::vector<Translation>& out);
  // Batches of batchSize sentences in `todo` order, each decoded start to end (beam search, or
  // greedy search with the Transformer decoder).
  void translateInBatches(const std::vector<std::size_t>& todo, const std::vector<EncodedPair>& sources,
                          std::vector<Translation>& out);

  TranslationModel& model_;
  TranslatorOptions options_;
  c10::Device device_;
};

}  // namespace nmt
