#pragma once

#include <ATen/core/Tensor.h>

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

}  // namespace nmt
