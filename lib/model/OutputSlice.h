#pragma once

#include "kernels/Int8Linear.h"

#include <ATen/core/Tensor.h>

#include <memory>
#include <vector>

namespace nmt {

// A part of a decoder's output layer: the rows of the target pieces a batch may produce (a
// Shortlist's union), made once by Decoder::sliceOutput. A sliced step scores only these pieces:
// its column n is piece ids[n] (the searches then leave out of each row what its sentence's own
// list lacks: decode/BatchShortlist.h).
struct OutputSlice {
  std::vector<int> ids;  // sorted target ids
  at::Tensor deviceIds;  // the same, int64 on the model's device
  at::Tensor weight;     // the output layer's rows (or the tied embedding's) for those pieces; undefined with int8
  at::Tensor bias;       // undefined when the layer has none, or with int8
  std::shared_ptr<const Int8Linear> int8;  // the same rows in int8 instead, when the decoder's output is quantized

  int64_t column(int piece) const;  // where piece is among ids; -1 where the slice lacks it
};

// The rows `ids` of an output layer: weight [V, in] (the layer's, or the tied embedding's), bias
// [V] or undefined, and its int8 copy or null. What every decoder's sliceOutput returns.
OutputSlice sliceRows(const std::vector<int>& ids, const at::Tensor& weight, const at::Tensor& bias,
                      const Int8Linear* int8);

}  // namespace nmt
