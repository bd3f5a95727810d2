#include "decode/ForcedDecoding.h"

#include "data/Batch.h"
#include "decode/StepColumns.h"
#include "decode/rules/ProducibleRule.h"
#include "tokenization/SpecialIds.h"

#include <limits>

namespace nmt {

BatchShortlist forcedShortlist(const Seq2Seq& model, const Shortlist& shortlist, const std::vector<int>& source,
                               const std::vector<int>& target) {
  std::vector<int> pieces = target;
  pieces.push_back(SpecialIds::kEos);
  const auto merged = withPieces(shortlist.targetsFor(source), std::move(pieces));
  return batchShortlist(model, shortlist, {&merged});
}

ForcedResult forcedDecode(Seq2Seq& model, const std::vector<int>& source, const std::vector<int>& target,
                          const BatchShortlist* shortlist) {
  const std::vector<EncodedPair> pair{{source, target, 0}};
  const Batch batch = makeBatch(pair, {0}, model->device());
  // Step by step, as the searches decode: a translation scores what its search scored, also where a
  // step computes otherwise than a pass over the whole target (the RNN decoder's int8 gates).
  const auto encoded = model->encode(batch.source, batch.sourceLengths, batch.sourceMask);
  const DecoderMemory memory = model->prepareDecoder(encoded);
  DecoderState state = model->initialDecoderState(encoded);
  const auto input = batch.decoderInput();
  auto gold = batch.gold();  // [1, T]: target + </s>
  const StepColumns columns(shortlist ? &shortlist->slice : nullptr);
  if (shortlist) {  // its columns in the slice (forcedShortlist's holds every one)
    std::vector<int64_t> goldColumns;
    for (int id : target) goldColumns.push_back(columns.column(id));
    goldColumns.push_back(columns.column(SpecialIds::kEos));
    gold = at::tensor(goldColumns, at::kLong).unsqueeze(0).to(gold.device());
  }
  std::vector<at::Tensor> goldLogProbs, attention;
  at::Tensor last;  // the last step's log-probabilities [1, columns]
  for (int64_t t = 0; t < gold.size(1); ++t) {
    auto step = model->decodeStep(input.select(1, t), state, memory, shortlist ? &shortlist->slice : nullptr,
                                  at::Tensor());
    leaveOutUnproducible(step.logits, shortlist ? shortlist->ownPieces : at::Tensor());
    last = step.logProbs();
    goldLogProbs.push_back(last.gather(1, gold.narrow(1, t, 1)));  // [1, 1], read once at the end
    attention.push_back(step.attention[0]);
    state = std::move(step.state);
  }
  ForcedResult result;
  result.next = columns.overVocabulary(last[0], model->config().targetVocab, -std::numeric_limits<float>::infinity());
  result.score = at::cat(goldLogProbs).to(torch::kCPU, torch::kFloat64).sum().item<double>();
  result.attention = at::stack(attention).to(torch::kCPU, torch::kFloat32);
  return result;
}

}  // namespace nmt
