#pragma once

#include "decode/DecodingOptions.h"

namespace nmt {

class Decoder;

// How sentences are searched.
enum class SearchStrategy {
  kGreedyBatches,       // greedy search over sorted batches, each decoded start to end (greedySearch)
  kGreedyRunningBatch,  // greedy search in one running batch that sentences join as others end (RunningBatch)
  kBeamBatches,         // beam search over sorted batches (beamSearch)
};

// What the caller brings, beside its options, that decides how its sentences are searched.
struct CallFacts {
  // All its sentences are at hand and may be sorted by length (a file, a call), rather than arriving
  // one by one (a server's requests).
  bool sentencesAhead = true;
};

// A caller's decoding (a Translator's, a server request's), decided once by planDecoding and handed on
// to the searches: nothing after it checks the options or chooses the search again. A new search is a
// value of SearchStrategy, its rule in planDecoding, and its case where the plan is carried out
// (Translator, search(), the server).
struct DecodingPlan {
  DecodingOptions options;  // checked
  SearchStrategy strategy = SearchStrategy::kGreedyBatches;          // for sentences without prefixes
  SearchStrategy prefixedStrategy = SearchStrategy::kGreedyBatches;  // for a call where a sentence has one

  SearchStrategy strategyFor(bool prefixes) const { return prefixes ? prefixedStrategy : strategy; }
  bool runningBatch(bool prefixes) const { return strategyFor(prefixes) == SearchStrategy::kGreedyRunningBatch; }
};

// OptionError as checkDecodingOptions says. Otherwise: beam search for a beam; greedy search in sorted
// batches where its steps are guided (a prefix, no repeated n-grams) or sampled, and where the decoder's
// state grows and the sentences are at hand (a running batch's growing state spans its longest-lived
// row's positions for every row, and each step copies it: as fast as sorted batches, which cut ended
// rows away, or slower; docs/performance.md, "Figures behind the code's choices"); else greedy search
// in a running batch.
DecodingPlan planDecoding(const DecodingOptions& options, const Decoder& decoder, CallFacts call);

}  // namespace nmt
