#include "attention/AttentionHeads.h"

#include "data/Batch.h"
#include "attention/HeatmapOf.h"
#include "tokenization/SpecialIds.h"

#include <fmt/core.h>

namespace nmt {
namespace {

void addHeads(HeadMaps& out, const std::string& prefix, const std::vector<torch::Tensor>& layers,
              const std::vector<std::string>& rows, const std::vector<std::string>& columns) {
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const auto perHead = layers[l][0];  // [H, rows, columns] of the batch's only sentence
    for (int64_t h = 0; h < perHead.size(0); ++h)
      out.emplace_back(fmt::format("{}.layer{}.head{}", prefix, l + 1, h + 1), heatmapOf(perHead[h], rows, columns));
  }
}

}  // namespace

HeadMaps attentionHeads(Seq2Seq& model, const std::vector<int>& sourceIds, const std::vector<std::string>& sourcePieces,
                        const std::vector<int>& targetIds, const std::vector<std::string>& targetPieces,
                        const HeadChoice& choice) {
  const std::vector<EncodedPair> pair{{sourceIds, {}, 0}};
  const Batch batch = makeBatch(pair, {0}, model->device());
  auto& encoder = model->encoder();
  if (choice.encoderSelf) encoder.keepAttention(true);
  const auto encoded = model->encode(batch.source, batch.sourceLengths, batch.sourceMask);
  HeadMaps out;
  if (choice.encoderSelf) {
    addHeads(out, "self", encoder.selfAttentionHeads(), sourcePieces, sourcePieces);
    encoder.keepAttention(false);
  }
  if (!choice.cross && !choice.decoderSelf) return out;
  // the pieces fed: <s>, then each produced piece but the last
  std::vector<int64_t> fed{SpecialIds::kBos};
  std::vector<std::string> fedPieces{"<s>"};
  for (std::size_t i = 0; i + 1 < targetPieces.size() && i < targetIds.size(); ++i) {
    fed.push_back(targetIds[i]);
    fedPieces.push_back(targetPieces[i]);
  }
  auto& decoder = model->decoder();
  decoder.keepAttention(true);
  model->teacherForced(torch::tensor(fed, torch::kInt64).to(model->device()).unsqueeze(0), encoded);
  if (choice.cross) addHeads(out, "cross", decoder.crossAttentionHeads(), targetPieces, sourcePieces);
  if (choice.decoderSelf) addHeads(out, "decoder-self", decoder.selfAttentionHeads(), targetPieces, fedPieces);
  decoder.keepAttention(false);
  return out;
}

}  // namespace nmt
