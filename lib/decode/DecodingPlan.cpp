#include "decode/DecodingPlan.h"

#include "model/Decoder.h"

namespace nmt {

DecodingPlan planDecoding(const DecodingOptions& options, const Decoder& decoder, CallFacts call) {
  checkDecodingOptions(options);
  const auto strategy = [&](bool prefixes) {
    const bool guided = prefixes || options.sampling.on() || options.noRepeatNgram > 0;
    if (options.beamSize > 1) return SearchStrategy::kBeamBatches;
    if (guided || (call.sentencesAhead && decoder.stateGrows())) return SearchStrategy::kGreedyBatches;
    return SearchStrategy::kGreedyRunningBatch;
  };
  return {options, strategy(false), strategy(true)};
}

}  // namespace nmt
