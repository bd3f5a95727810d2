#pragma once

#include "model/EncoderOutput.h"

#include <ATen/core/Tensor.h>

#include <cstddef>
#include <vector>

namespace nmt {

// Tensors with one row per hypothesis, each along its own batch dimension; some also have an
// axis over the source positions. Only the decoder that made them knows what each part means:
// searches reorder, drop, stack and replace rows through these operations alone, whichever
// decoder runs. `Kind` keeps a state and a memory from being mixed up.
template <typename Kind>
class RowTensors {
 public:
  struct Part {
    at::Tensor tensor;
    int64_t batchDim = 0;
    int64_t sourceDim = -1;  // -1: no source axis
  };

  RowTensors() = default;
  // fixedShape: the decoder's mark that steps write into these tensors in place instead of growing
  // them (Decoder::withFixedLength); every operation below keeps it.
  explicit RowTensors(std::vector<Part> parts, bool fixedShape = false)
      : parts_(std::move(parts)), fixedShape_(fixedShape) {}

  // The i-th part, for the decoder that made it.
  const at::Tensor& operator[](std::size_t i) const { return parts_[i].tensor; }
  std::size_t size() const { return parts_.size(); }
  bool empty() const { return parts_.empty(); }
  int64_t rows() const;          // 0 without parts
  int64_t sourceLength() const;  // of the first part with a source axis; 0 without one
  bool fixedShape() const { return fixedShape_; }

  // The given rows, in that order (beams are reordered, ended rows dropped).
  RowTensors select(const at::Tensor& rows) const;
  // The same as select(rows) for tensors that are used up (a stepped state, a search's own memory):
  // unless there are more rows than before, only the rows that move are copied, written over these
  // tensors in place, and the rest cut (which keeps the Transformer's caches in buffers with room
  // to grow, and copies nothing when beams keep their rows).
  RowTensors reordered(const std::vector<int64_t>& rows);
  RowTensors first(int64_t count) const;  // the first `count` rows
  RowTensors rest(int64_t count) const;   // the rows after them
  // Source axes cut or padded (zeros: masked out of attention) to `length`.
  RowTensors withSourceLength(int64_t length) const;
  // Source axes without their first `count` positions (views).
  RowTensors withoutFirstSourcePositions(int64_t count) const;
  // The same tensors with the decoder's fixedShape mark set.
  RowTensors markedFixedShape() const;
  RowTensors contiguous() const;
  RowTensors clone() const;
  // Rows of b after those of a, source axes padded to the longer one; either may be empty (the
  // mark is a's, b's where a is empty).
  static RowTensors stacked(const RowTensors& a, const RowTensors& b);
  // Writes block's rows in place of `rows` (in order), padding source axes to the longer one.
  void overwrite(const at::Tensor& rows, const RowTensors& block);

 private:
  std::vector<Part> parts_;
  bool fixedShape_ = false;
};

struct StateRows;
struct MemoryRows;
extern template class RowTensors<StateRows>;
extern template class RowTensors<MemoryRows>;

// What a decoder carries from one step to the next.
using DecoderState = RowTensors<StateRows>;
// The encoder side as every decoder step reads it, prepared once per batch.
using DecoderMemory = RowTensors<MemoryRows>;

struct DecoderStep {
  at::Tensor logits;     // [B, V]: the output layer's, before the softmax
  DecoderState state;    // after this step
  at::Tensor attention;  // [B, S] over the source (Transformer: last layer, mean over heads)

  // log_softmax(logits) [B, V]: what beam search and forced decoding read (greedy search needs only
  // each row's best: greedyPick, without making them all).
  at::Tensor logProbs() const;
};

struct DecoderOutput {
  at::Tensor logits;     // [B, T, V] the output layer's scores (training's loss reads them: train/LabelSmoothedLoss)
  at::Tensor attention;  // [B, T, S]; undefined where training ran fused attention (a Transformer decoder on a GPU)
  at::Tensor inputs;     // [B, T] the tokens actually fed at each step

  at::Tensor logProbs() const;  // log_softmax(logits) [B, T, V]
};

}  // namespace nmt
