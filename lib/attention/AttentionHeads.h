#pragma once

#include "attention/Heatmap.h"
#include "model/Seq2Seq.h"

#include <string>
#include <utility>
#include <vector>

namespace nmt {

// Named per-layer, per-head attention matrices of one sentence, for the CSV writer:
// names such as "self.layer1.head2".
using HeadMaps = std::vector<std::pair<std::string, Heatmap>>;

// Which attention matrices to read: the Transformer encoder's self-attention ("self.layerL.headH",
// source x source), the Transformer decoder's cross-attention ("cross.layerL.headH", target x
// source) and its self-attention ("decoder-self.layerL.headH", target x the pieces fed: <s>, ...).
struct HeadChoice {
  bool encoderSelf = false;
  bool cross = false;
  bool decoderSelf = false;
};

// The chosen heads of one sentence (ids without </s>; pieces with it) while the decoder produces
// `targetPieces` (one row per produced piece, </s> included when it ended the translation) from
// `targetIds` (the translation's ids), fed as teacher forcing. Encodes the sentence once, and
// decodes only when decoder heads are asked for. Call under inference mode.
HeadMaps attentionHeads(Seq2Seq& model, const std::vector<int>& sourceIds, const std::vector<std::string>& sourcePieces,
                        const std::vector<int>& targetIds, const std::vector<std::string>& targetPieces,
                        const HeadChoice& choice);

}  // namespace nmt
