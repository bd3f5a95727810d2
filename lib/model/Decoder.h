#pragma once

#include "model/DecoderState.h"
#include "model/EncoderOutput.h"
#include "model/OutputSlice.h"

#include <ATen/core/Tensor.h>

#include <vector>

namespace nmt {

// What every decoder kind offers; makeEncoderDecoder (ModelFactory.h) picks the kind. Searches
// see only this: a state and a memory whose rows they move through DecoderState's operations.
class Decoder {
 public:
  virtual ~Decoder() = default;

  // Training over a whole target: targetInput [B, T] starts with <s>. teacherForcingRatio < 1
  // needs feedsOwnPredictions().
  virtual DecoderOutput teacherForced(const at::Tensor& targetInput, const EncoderOutput& encoded,
                                      double teacherForcingRatio) = 0;
  // Step-by-step decoding: the memory once per batch, the state before the first step, then
  // one step per position (previousTokens [B] int64; eval mode). With a slice (sliceOutput), the
  // step's log-probabilities are over the slice's pieces only, [B, slice size].
  virtual DecoderMemory prepare(const EncoderOutput& encoded) = 0;
  virtual DecoderState initialState(const EncoderOutput& encoded) = 0;
  // A state is stepped once: the next step may write into room its tensors leave after their last
  // position (the Transformer's caches grow in place); step a clone() to branch from it.
  // memoryRows [B] int64: the memory row each state row reads (a beam search's beams read their
  // sentence's); undefined: row i reads row i.
  virtual DecoderStep step(const at::Tensor& previousTokens, const DecoderState& state, const DecoderMemory& memory,
                           const OutputSlice* slice, const at::Tensor& memoryRows) = 0;
  // The state (initial, or fixed already) with room for `length` positions a row at shapes that stay:
  // each step then writes a row's position into that row's own place, where a growing state appends
  // one for every row (the Transformer's caches, padded in front for rows that joined later). For a
  // running batch whose step must keep its shapes (a CUDA graph's). A row takes at most `length`
  // steps: later ones write over its last position. A decoder whose state does not grow returns it.
  virtual DecoderState withFixedLength(const DecoderState& state, int64_t /*length*/) const { return state; }
  // A growing state without its first `count` positions of every row: positions that no row of it sees
  // any more (a running batch's, of rows long gone; the rows' positions are counted on the host, so
  // that no step reads the device back). A decoder whose state does not grow returns it.
  virtual DecoderState withoutFirstPositions(const DecoderState& state, int64_t /*count*/) const { return state; }
  // Whether step reads memoryRows where they are on this device; otherwise it copies the rows
  // out every step, and a search had better select the memory's rows itself when they change.
  virtual bool readsMemoryRowsInPlace(const c10::Device&) const { return false; }
  // The output layer's rows for these sorted target ids (a shortlist), for sliced steps.
  virtual OutputSlice sliceOutput(const std::vector<int>& ids) const = 0;
  // From now on, steps and slices run the output layer in int8, and the linear layers inside
  // where the decoder has them (Int8Linear; useInt8Engine first; translation only).
  virtual void quantize() = 0;

  // Whether its embeddings are multiplied by sqrt(E) when read (they start smaller: Seq2Seq::initialize).
  virtual bool scalesEmbeddings() const = 0;
  // Capability: it can be trained on its own previous predictions (teacher forcing below 1).
  virtual bool feedsOwnPredictions() const = 0;
  // Whether its state grows by a position every step (the Transformer's caches), rather than staying
  // one vector per layer and row (the RNN's). Rows of different ages stack into one state either way
  // (a running batch's newcomers); a growing one spans its longest-lived row's positions for every row.
  virtual bool stateGrows() const = 0;

  // Capability: per-layer, per-head attention of the last decode or step while keepAttention is
  // on: cross-attention [B, H, T, S] and self-attention [B, H, T, T]. Without heads, none.
  virtual bool hasAttentionHeads() const { return false; }
  virtual void keepAttention(bool) {}
  virtual const std::vector<at::Tensor>& crossAttentionHeads() const { return noAttentionHeads(); }
  virtual const std::vector<at::Tensor>& selfAttentionHeads() const { return noAttentionHeads(); }
};

}  // namespace nmt
