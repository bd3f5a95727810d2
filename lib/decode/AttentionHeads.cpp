#include "decode/AttentionHeads.h"

#include "data/Batch.h"
#include "decode/HeatmapOf.h"
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

HeadMaps encoderSelfAttention(Seq2Seq& model, const std::vector<int>& sourceIds,
                              const std::vector<std::string>& sourcePieces, const c10::Device& device) {
  auto encoder = model->transformerEncoder();
  encoder->keepAttention(true);
  const std::vector<EncodedPair> pair{{sourceIds, {}, 0}};
  const Batch batch = makeBatch(pair, {0}, device);
  model->encode(batch.source, batch.sourceLengths, batch.sourceMask);
  HeadMaps out;
  addHeads(out, "self", encoder->selfAttention(), sourcePieces, sourcePieces);
  encoder->keepAttention(false);
  return out;
}

HeadMaps decoderAttentionHeads(Seq2Seq& model, const std::vector<int>& sourceIds,
                               const std::vector<std::string>& sourcePieces, const std::vector<int>& targetIds,
                               const std::vector<std::string>& targetPieces, bool cross, bool decoderSelf,
                               const c10::Device& device) {
  auto decoder = model->transformerDecoder();
  // the pieces fed: <s>, then each produced piece but the last
  std::vector<int64_t> fed{SpecialIds::kBos};
  std::vector<std::string> fedPieces{"<s>"};
  for (std::size_t i = 0; i + 1 < targetPieces.size() && i < targetIds.size(); ++i) {
    fed.push_back(targetIds[i]);
    fedPieces.push_back(targetPieces[i]);
  }
  const std::vector<EncodedPair> pair{{sourceIds, {}, 0}};
  const Batch batch = makeBatch(pair, {0}, device);
  const auto encoded = model->encode(batch.source, batch.sourceLengths, batch.sourceMask);
  decoder->keepAttention(true);
  model->decode(torch::tensor(fed, torch::kInt64).to(device).unsqueeze(0), encoded);
  HeadMaps out;
  if (cross) addHeads(out, "cross", decoder->crossAttention(), targetPieces, sourcePieces);
  if (decoderSelf) addHeads(out, "decoder-self", decoder->selfAttention(), targetPieces, fedPieces);
  decoder->keepAttention(false);
  return out;
}

}  // namespace nmt
