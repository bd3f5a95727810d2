#include "decode/DecodingPlan.h"

#include "model/Decoder.h"

namespace nmt {

DecodingPlan planDecoding(const DecodingOptions& options, const Decoder& decoder, CallFacts call) {
  checkDecodingOptions(options);
  DecodingPlan plan{options, SearchStrategy::kGreedyRunningBatch};
  const bool guided = call.prefixes || options.sampling.on() || options.noRepeatNgram > 0;
  if (options.beamSize > 1)
    plan.strategy = SearchStrategy::kBeamBatches;
  else if (guided || (call.sentencesAhead && decoder.stateGrows()))
    plan.strategy = SearchStrategy::kGreedyBatches;
  return plan;
}

}  // namespace nmt
