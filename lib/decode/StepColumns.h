#pragma once

#include "model/OutputSlice.h"

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace nmt {

// What a decoder step's columns stand for: the target vocabulary's pieces in order, or with a
// shortlist its slice's (column n is slice->ids[n]). The one place where a search's columns become
// target ids and ids columns; everything before it works on columns, everything after on ids.
class StepColumns {
 public:
  explicit StepColumns(const OutputSlice* slice = nullptr) : slice_(slice) {}

  int piece(int64_t column) const;  // the target id of a column
  // [n] int64 columns to their target ids, on the columns' device (a slice's ids live on the model's)
  at::Tensor pieces(const at::Tensor& columns) const;
  int64_t column(int piece) const;  // -1 where the columns lack the piece (not in the slice)
  // A row of values over the columns [columns] as a row over the whole vocabulary [vocabulary], float32
  // on the CPU: `missing` where the slice lacks a piece.
  at::Tensor overVocabulary(const at::Tensor& row, int64_t vocabulary, float missing) const;

 private:
  const OutputSlice* slice_;
};

}  // namespace nmt
