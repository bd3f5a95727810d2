#pragma once

#include "SpmBridge.h"

namespace nmt {

// The bridge's functions, resolved once from libnmt_spm_bridge.so. Looked up in order:
// $NMT_SPM_BRIDGE, the folder of the running program, then <program folder>/../lib/nmt.
struct SpmBridgeLibrary {
  decltype(&nmt_spm_train) train;
  decltype(&nmt_spm_load) load;
  decltype(&nmt_spm_destroy) destroy;
  decltype(&nmt_spm_vocab_size) vocabSize;
  decltype(&nmt_spm_id_to_piece) idToPiece;
  decltype(&nmt_spm_piece_to_id) pieceToId;
  decltype(&nmt_spm_encode_ids) encodeIds;
  decltype(&nmt_spm_encode_pieces) encodePieces;
  decltype(&nmt_spm_decode_ids) decodeIds;
  decltype(&nmt_spm_decode_pieces) decodePieces;
  decltype(&nmt_spm_free) free;

  // Loads the bridge on first use (thread-safe); throws BpeError if it cannot.
  static const SpmBridgeLibrary& get();
};

}  // namespace nmt
