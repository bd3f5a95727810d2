#pragma once

#include <ATen/core/Tensor.h>

#include <utility>

namespace nmt {

// The k largest entries of each row of a [rows, n] matrix, largest first, and their places: what
// at::topk(scores, k, 1) returns. A float32 CPU matrix goes through one pass a row that skips
// sixteen entries at a time while none beats the row's k-th best so far (beam search asks for 2K of
// 8,000 scores a row every step; LibTorch sorts a copy of each row for that). Equal entries come in
// the order of their places; NaN counts as larger than any number, as in at::topk.
std::pair<at::Tensor, at::Tensor> rowTopK(const at::Tensor& scores, int64_t k);

}  // namespace nmt
