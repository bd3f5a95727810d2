#pragma once

#include "kernels/OneDnnBlas.h"

#include <ATen/core/Tensor.h>

namespace nmt {

// oneDNN's packing (onednn::packF32) of a float32 weight [out, in] (rows with stride 1) that inference
// reads at every decoding step: made at its first product and kept while the weight lives unchanged.
// Kept by the weight's storage, held weakly (the pack of a freed weight, such as a batch's shortlist
// slice, goes when the next weight is packed), and checked against the weight's version counter (an
// in-place change, an optimizer's step say, packs it again). Empty where oneDNN has no packed GEMM.
// Thread-safe.
onednn::PackedMatrix packedWeight(const at::Tensor& weight);

// How many packs are kept (tests).
std::size_t packedWeightsKept();

}  // namespace nmt
