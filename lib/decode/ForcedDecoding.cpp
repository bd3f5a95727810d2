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
  std::vector<at::Tensor> goldLogProbs, attention;
  for (int64_t t = 0; t < gold.size(1); ++t) {
    auto step = model->decodeStep(input.select(1, t), state, memory, nullptr, at::Tensor());
    goldLogProbs.push_back(step.logProbs().gather(1, gold.narrow(1, t, 1)));  // [1, 1], read once at the end
    attention.push_back(step.attention[0]);
    state = std::move(step.state);
  }
  ForcedResult result;
  result.score = at::cat(goldLogProbs).to(torch::kCPU, torch::kFloat64).sum().item<double>();
  result.attention = at::stack(attention).to(torch::kCPU, torch::kFloat32);
  return result;
}

}  // namespace nmt
