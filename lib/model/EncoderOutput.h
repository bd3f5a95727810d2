#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

namespace nmt {

// A recurrent state per decoder layer: h [layers, B, H]; c likewise for LSTM, undefined for GRU.
struct RecurrentState {
  at::Tensor h;
  at::Tensor c;
};

// What any encoder hands the decoder.
struct EncoderOutput {
  at::Tensor outputs;           // [B, S, D], zero at padded positions
  at::Tensor mask;              // [B, S] bool, true at real tokens
  RecurrentState initialState;  // the decoder's first state, through the encoder's bridge
};

// What a module without attention heads answers when asked for them.
inline const std::vector<at::Tensor>& noAttentionHeads() {
  static const std::vector<at::Tensor> none;
  return none;
}

}  // namespace nmt
