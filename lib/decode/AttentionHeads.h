#pragma once

#include "io/Heatmap.h"
#include "model/Seq2Seq.h"

#include <string>
#include <utility>
#include <vector>

namespace nmt {

// Named per-layer, per-head attention matrices of one sentence, for the CSV writer:
// names such as "self.layer1.head2".
using HeadMaps = std::vector<std::pair<std::string, Heatmap>>;

// The Transformer encoder's self-attention over one source sentence (ids without </s>; pieces
// with it): "self.layerL.headH", source x source.
HeadMaps encoderSelfAttention(Seq2Seq& model, const std::vector<int>& sourceIds,
                              const std::vector<std::string>& sourcePieces, const c10::Device& device);

// The Transformer decoder's attention while it produces `targetPieces` (one row per produced
// piece, </s> included when it ended the translation) from `targetIds` (the translation's ids),
// fed as teacher forcing: cross-attention "cross.layerL.headH" (target x source) and, with
// `decoderSelf`, self-attention "decoder-self.layerL.headH" (target x the pieces fed: <s>, ...).
// Call under inference mode.
HeadMaps decoderAttentionHeads(Seq2Seq& model, const std::vector<int>& sourceIds,
                               const std::vector<std::string>& sourcePieces, const std::vector<int>& targetIds,
                               const std::vector<std::string>& targetPieces, bool cross, bool decoderSelf,
                               const c10::Device& device);

}  // namespace nmt
