#include "kernels/BatchedProduct.h"

#include "kernels/OneDnnBlas.h"
#include "util/ParallelFor.h"
#include "util/Threads.h"
#include "util/TorchCompat.h"

#include <ATen/ATen.h>
#include <torch/autograd.h>

#include <algorithm>
#include <vector>

namespace nmt {
namespace {

// One operand's matrices as oneDNN reads them: 'N' (rows are stored rows) or 'T' (rows are stored
// columns), the distance between stored rows, and where each matrix of the batch starts.
struct Operand {
  at::Tensor tensor;  // keeps the memory alive (a contiguous copy where the strides allow neither way)
  char trans = 'N';
  int64_t ld = 0;
};

// The way to read a [rows, cols] matrix with strides (rowStride, colStride), if there is one.
bool readable(int64_t rows, int64_t cols, int64_t rowStride, int64_t colStride, char* trans, int64_t* ld) {
  if ((colStride == 1 || cols == 1) && (rows == 1 || rowStride >= cols)) {
    *trans = 'N';
    *ld = rows == 1 ? std::max<int64_t>(cols, 1) : rowStride;
    return true;
  }
  if ((rowStride == 1 || rows == 1) && (cols == 1 || colStride >= rows)) {
    *trans = 'T';
    *ld = cols == 1 ? std::max<int64_t>(rows, 1) : colStride;
    return true;
  }
  return false;
}

Operand operand(const at::Tensor& t) {
  const int64_t d = t.dim();
  Operand o{t};
  if (!readable(t.size(d - 2), t.size(d - 1), t.stride(d - 2), t.stride(d - 1), &o.trans, &o.ld)) {
    o.tensor = t.contiguous();
    o.trans = 'N';
    o.ld = std::max<int64_t>(t.size(d - 1), 1);
  }
  return o;
}

// Where the n-th matrix (leading indices in row-major order) of t starts, in elements.
std::vector<int64_t> matrixOffsets(const at::Tensor& t) {
  const int64_t leading = t.dim() - 2;
  int64_t count = 1;
  for (int64_t i = 0; i < leading; ++i) count *= t.size(i);
  std::vector<int64_t> offsets(count);
  for (int64_t n = 0; n < count; ++n) {
    int64_t rest = n, offset = 0;
    for (int64_t i = leading - 1; i >= 0; --i) {
      offset += rest % t.size(i) * t.stride(i);
      rest /= t.size(i);
    }
    offsets[n] = offset;
  }
  return offsets;
}

at::Tensor productOf(const at::Tensor& a, const at::Tensor& b) {
  const int64_t d = a.dim(), M = a.size(d - 2), K = a.size(d - 1), N = b.size(d - 1);
  auto sizes = a.sizes().vec();
  sizes.back() = N;
  auto c = at::empty(sizes, a.options().memory_format(at::MemoryFormat::Contiguous));
  if (c.numel() == 0) return c;
  if (K == 0) return c.zero_();
  const Operand A = operand(a), B = operand(b);
  const auto aOffsets = matrixOffsets(A.tensor), bOffsets = matrixOffsets(B.tensor);
  const float* aData = A.tensor.data_ptr<float>();
  const float* bData = B.tensor.data_ptr<float>();
  float* cData = c.data_ptr<float>();
  const int64_t count = static_cast<int64_t>(aOffsets.size());
  // Threads of its own rather than OpenMP's: libgomp's workers spin after a parallel region and took a
  // core from the OpenBLAS products that follow (8% slower products in a profile).
  const auto threads = static_cast<unsigned>(std::min<int64_t>(std::max(1, matrixThreads()), count));
  parallelFor(static_cast<std::size_t>(count), threads, [&](std::size_t n, unsigned) {
    onednn::sgemm(A.trans, B.trans, M, N, K, aData + aOffsets[n], A.ld, bData + bOffsets[n], B.ld, 0.0f,
                  cData + static_cast<int64_t>(n) * M * N, N, 1);
  });
  return c;
}

class BatchedProductFunction : public torch::autograd::Function<BatchedProductFunction> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& a, const at::Tensor& b) {
    ctx->save_for_backward({a, b});
    return productOf(a, b);
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto& a = saved[0];
    const auto& b = saved[1];
    const auto& g = grads[0];
    at::Tensor ga, gb;
    if (ctx->needs_input_grad(0)) ga = productOf(g, b.transpose(-2, -1));  // [M, N] x [N, K]
    if (ctx->needs_input_grad(1)) gb = productOf(a.transpose(-2, -1), g);  // [K, M] x [M, N]
    return {ga, gb};
  }
};

}  // namespace

bool batchedProductUsesOneDnn(const at::Tensor& a, const at::Tensor& b) {
  if (!onednn::available() || !a.is_cpu() || !b.is_cpu() || a.scalar_type() != at::kFloat ||
      b.scalar_type() != at::kFloat || compat::autocastEnabled(c10::DeviceType::CPU) || a.dim() < 3 ||
      a.dim() != b.dim() || a.size(-1) != b.size(-2))
    return false;
  for (int64_t i = 0; i + 2 < a.dim(); ++i)
    if (a.size(i) != b.size(i)) return false;
  return true;
}

at::Tensor batchedProduct(const at::Tensor& a, const at::Tensor& b) {
  if (!batchedProductUsesOneDnn(a, b)) return at::matmul(a, b);
  return BatchedProductFunction::apply(a, b);
}

}  // namespace nmt
