#include "decode/Search.h"

#include "decode/BeamSearch.h"
#include "decode/GreedySearch.h"

namespace nmt {

std::vector<std::vector<Hypothesis>> search(Seq2Seq& model, const Batch& batch, const DecodingOptions& options,
                                            const OutputSlice* slice) {
  if (options.beamSize > 1) return beamSearch(model, batch, options, slice);
  std::vector<std::vector<Hypothesis>> out;
  for (auto& h : greedySearch(model, batch, options.limits, options.keepAttention, slice)) out.push_back({std::move(h)});
  return out;
}

}  // namespace nmt
