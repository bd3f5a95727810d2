#pragma once

#include "data/Batch.h"
#include "decode/BatchShortlist.h"
#include "decode/DecodingOptions.h"
#include "decode/Hypothesis.h"
#include "decode/SentenceGuide.h"
#include "model/Seq2Seq.h"

#include <utility>
#include <vector>

namespace nmt {

// How sentences are searched: chosen once (chooseSearch) from the options and the decoder, and
// dispatched by the translator, the server and search() alike. A new search is a value here, its
// rule in chooseSearch, and its case where they dispatch.
enum class SearchStrategy {
  kGreedyBatches,       // greedy search over sorted batches, each decoded start to end (greedySearch)
  kGreedyRunningBatch,  // greedy search in one running batch that sentences join as others end (RunningBatch)
  kBeamBatches,         // beam search over sorted batches (beamSearch)
};

// sentencesAhead: the caller has all its sentences at once and may sort them by length (a file, a
// call), rather than taking them as they arrive (a server). Greedy search runs a running batch where
// the decoder takes newcomers, unless sorted batches are faster for it and the sentences are at hand,
// or its steps are guided (a prefix: `prefixes`; no repeats) or sampled: those run in sorted batches.
SearchStrategy chooseSearch(const DecodingOptions& options, const Decoder& decoder, bool sentencesAhead,
                            bool prefixes = false);

// One batch decoded start to end, by beam search where chooseSearch picks it, else greedy search (what a
// running batch gives each sentence too, to float rounding): each batch row's hypotheses, best first
// (greedy: one; beam: up to nbest); each row among its own shortlist's
// pieces only when given the batch's (row r: its ownPieces row r); guides: one per batch row (its
// prefix, its samples' stream), or null. Call under inference mode.
std::vector<std::vector<Hypothesis>> search(Seq2Seq& model, const Batch& batch, const DecodingOptions& options,
                                            const BatchShortlist* shortlist = nullptr,
                                            const std::vector<SentenceGuide>* guides = nullptr);

// Each row's largest log-probability and its place: what logProbs.max(-1) returns (the first of equal
// entries; a NaN before any number): through rowTopK's one pass a row for a float32 matrix on the CPU.
std::pair<at::Tensor, at::Tensor> bestOfEachRow(const at::Tensor& logProbs);

// The rows that go on (given in row order): each keeps its place, and those after the last hole
// move into the holes, last first, so that a search that ends moves one row's state (or one
// sentence's beams) rather than every row after it. The order of rows decides nothing.
std::vector<std::size_t> holesFilledFromTheEnd(const std::vector<bool>& goesOn);

}  // namespace nmt
