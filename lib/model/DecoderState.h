#pragma once

#include "model/EncoderOutput.h"

#include <ATen/core/Tensor.h>

#include <vector>

namespace nmt {

// What a decoder carries from one step to the next, for either decoder. Every tensor has one row
// per hypothesis, so searches reorder and drop rows through selectRows without knowing which
// decoder runs.
struct DecoderState {
  RecurrentState recurrent;           // the RNN decoder's state (undefined for the Transformer's)
  std::vector<at::Tensor> selfKeys;   // the Transformer decoder's cache, per layer: [B, H, t, dk]
  std::vector<at::Tensor> selfValues;  // (the keys and values of every position decoded so far)
};

// The encoder side as every decoder step reads it, prepared once per batch.
struct DecoderMemory {
  at::Tensor values;                   // RNN decoder: [B, S, *] what attention averages (its prepare says)
  at::Tensor projectedKeys;            // RNN decoder: [B, S, A] = U * encoder outputs
  at::Tensor mask;                     // [B, S] bool
  std::vector<at::Tensor> crossKeys;   // Transformer decoder, per layer: [B, H, S, dk]
  std::vector<at::Tensor> crossValues;
};

struct DecoderStep {
  at::Tensor logProbs;   // [B, V]
  DecoderState state;    // after this step
  at::Tensor attention;  // [B, S] over the source (Transformer: last layer, mean over heads)
};

struct DecoderOutput {
  at::Tensor logProbs;   // [B, T, V]
  at::Tensor attention;  // [B, T, S]
  at::Tensor inputs;     // [B, T] the tokens actually fed at each step
};

// The given rows of a batch's decoder state and memory, in that order: searches reorder rows
// (beams) and drop the rows that have finished.
DecoderState selectRows(const DecoderState& state, const at::Tensor& rows);
DecoderMemory selectRows(const DecoderMemory& memory, const at::Tensor& rows);

}  // namespace nmt
