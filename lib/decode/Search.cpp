#include "decode/Search.h"

#include "decode/BeamSearch.h"
#include "decode/GreedySearch.h"

namespace nmt {

std::vector<std::vector<Hypothesis>> search(Seq2Seq& model, const Batch& batch, const DecodingPlan& plan,
                                            const BatchShortlist* shortlist, const std::vector<SentenceGuide>* guides) {
  if (plan.strategy == SearchStrategy::kBeamBatches) return beamSearch(model, batch, plan.options, shortlist, guides);
  std::vector<std::vector<Hypothesis>> out;
  for (auto& h : greedySearch(model, batch, plan.options, shortlist, guides)) out.push_back({std::move(h)});
  return out;
}

}  // namespace nmt
