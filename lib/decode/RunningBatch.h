#pragma once

#include "decode/ContinuousGreedySearch.h"
#include "decode/Translation.h"
#include "decode/TranslationModel.h"

#include <cstddef>
#include <unordered_map>
#include <utility>
#include <vector>

namespace nmt {

// Sentences encoded together, on their way into a running batch, each known by its tag.
struct Arrivals {
  ContinuousGreedySearch::Group group;
  std::vector<std::pair<std::size_t, Translation>> sentences;  // their sources read (untranslated)
};

// The one driver of greedy search with a running batch, for the translator and the server alike:
// sentences join between steps (ContinuousGreedySearch) and leave as whole Translations at the
// step they end. Call under inference mode.
class RunningBatch {
 public:
  // With the model's shortlist where it has one loaded; scores: as DecodingOptions::scores.
  RunningBatch(TranslationModel& model, DecodeLimits limits, std::size_t capacity, bool scores = true);

  // Encodes the sentences (non-empty sources) as one group; reads only the model, so it may run on
  // another thread than the one that steps. keepAttention[i]: sentence i's attention is kept.
  static Arrivals encode(TranslationModel& model, DecodeLimits limits,
                         std::vector<std::pair<std::size_t, Translation>> sentences,
                         const std::vector<bool>& keepAttention);
  void add(Arrivals arrivals);

  // One decoder step; the sentences that ended, finished, with their tags.
  std::vector<std::pair<std::size_t, Translation>> step();
  std::size_t waiting() const { return search_.waiting(); }             // encoded, not yet running
  std::size_t rows() const { return search_.live() + search_.waiting(); }  // running or waiting to
  bool busy() const { return rows() > 0; }

 private:
  TextCodec codec_;
  bool cutLoops_;
  ContinuousGreedySearch search_;
  std::unordered_map<std::size_t, Translation> sentences_;  // by tag, until they end
};

}  // namespace nmt
