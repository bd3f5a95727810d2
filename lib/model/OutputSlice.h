#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

namespace nmt {

// A part of a decoder's output layer: the rows of the target pieces a batch may produce (a
// Shortlist's union), made once by Decoder::sliceOutput. A sliced step scores only these pieces:
// its column n is piece ids[n], normalized over the slice.
struct OutputSlice {
  std::vector<int> ids;  // sorted target ids
  at::Tensor deviceIds;  // the same, int64 on the model's device
  at::Tensor weight;     // the output layer's rows (or the tied embedding's) for those pieces
  at::Tensor bias;       // undefined when the layer has none
};

}  // namespace nmt
