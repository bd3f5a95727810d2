#pragma once

#include <ATen/core/Tensor.h>

namespace nmt {

// a [..., M, K] x b [..., K, N] -> [..., M, N], a and b with the same leading sizes, differentiable: attention's
// two products while it trains. On the CPU in float32 (autocast off, oneDNN found) each matrix is one oneDNN
// sgemm on one thread, the matrices split over matrixThreads() threads, each operand read where it
// lies (a head's rows of a [B, S, H, d] projection, or a transposed view, without a copy); the gradients are
// the same products. LibTorch 1.13's bmm sends each of the thousands of tiny matrices of a training batch
// (a sentence's head: about 20 x 64 x 20) through a dispatched mm of its own, on one thread: 15% of a float32
// step of the full Transformer, against about 4% this way (docs/performance.md). A matrix's sums do not
// depend on the thread count. Elsewhere torch::matmul.
at::Tensor batchedProduct(const at::Tensor& a, const at::Tensor& b);

// Whether batchedProduct(a, b) takes oneDNN's way (for tests)
bool batchedProductUsesOneDnn(const at::Tensor& a, const at::Tensor& b);

}  // namespace nmt
