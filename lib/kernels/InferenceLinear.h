#pragma once

#include "kernels/Int8Linear.h"

#include <ATen/core/Tensor.h>

#include <memory>
#include <string>

namespace nmt {

// Which kernels run the fp32 products of inference (y = x W^T + b with no gradient wanted).
//   OneDnn: oneDNN's sgemm, looked up in the oneDNN library LibTorch loaded (libdnnl.so.2 or .3).
//     It picks its kernels from the CPU itself (AVX-512 where there is one, whatever
//     OPENBLAS_CORETYPE says) and ran the decoder's small-row products 1.4-2x faster than
//     OpenBLAS: OpenBLAS packs the whole weight matrix again for the few rows of every step.
//   Torch: LibTorch's own linear (OpenBLAS here): training, autocast, other devices and dtypes,
//     and every product when no oneDNN sgemm is found.
enum class FloatProducts { OneDnn, Torch };

// OneDnn when oneDNN's sgemm is found (and NMT_FLOAT_PRODUCTS is not "torch"), else Torch.
FloatProducts floatProducts();
// Overrides the choice for this process (tests run both ways); OneDnn without oneDNN stays Torch.
void setFloatProducts(FloatProducts products);
// For --kernels and logs: "oneDNN sgemm (libdnnl.so.2)" or "LibTorch (WHY)".
std::string describeFloatProducts();

// y = x W^T + b. x [..., in], weight [out, in], bias [out] or undefined. Through oneDNN's sgemm
// when floatProducts() is OneDnn, no gradient is recorded, autocast is off and all three are
// float32 on the CPU; through at::linear otherwise. Its threads: matrixThreads() at the call
// (1 inside SingleThreadedBlas), as OpenBLAS's would be. On one thread the weight is packed for
// oneDNN once (packedWeight), not at every call; for some row counts its sums are added in
// another order than unpacked (onednn::sgemm with a PackedMatrix).
at::Tensor inferenceLinear(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias);
// relu(x W^T + b), the relu taken as the product's rows are still in cache where oneDNN makes them.
at::Tensor inferenceLinearRelu(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias);

// A torch::nn::LayerNorm as what an Int8Linear may normalize its input with.
template <class LayerNorm>
Int8Linear::InputNorm inputNorm(const LayerNorm& norm) {
  return {norm->weight, norm->bias, norm->options.eps()};
}

}  // namespace nmt
