#include "decode/ForcedDecoding.h"

#include "data/Batch.h"

namespace nmt {

ForcedResult forcedDecode(Seq2Seq& model, const std::vector<int>& source, const std::vector<int>& target) {
  const std::vector<EncodedPair> pair{{source, target, 0}};
  const Batch batch = makeBatch(pair, {0}, model->device());
  // Step by step, as the searches decode: a translation scores what its search scored, also where a
  // step computes otherwise than a pass over the whole target (the RNN decoder's int8 gates).
  const auto encoded = model->encode(batch.source, batch.sourceLengths, batch.sourceMask);
  const DecoderMemory memory = model->prepareDecoder(encoded);
  DecoderState state = model->initialDecoderState(encoded);
  const auto input = batch.decoderInput(), gold = batch.gold();
  std::vector<at::Tensor> attention;
  ForcedResult result;
  for (int64_t t = 0; t < gold.size(1); ++t) {
    auto step = model->decodeStep(input.select(1, t), state, memory, nullptr, at::Tensor());
    result.score += step.logProbs[0][gold[0][t].item<int64_t>()].item<double>();
    attention.push_back(step.attention[0]);
    state = std::move(step.state);
  }
  result.attention = at::stack(attention).to(torch::kCPU, torch::kFloat32);
  return result;
}

}  // namespace nmt
