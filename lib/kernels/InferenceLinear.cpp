#include "kernels/InferenceLinear.h"

#include "kernels/FloatWeightPacks.h"
#include "kernels/OneDnnBlas.h"
#include "kernels/SplitProducts.h"
#include "util/Threads.h"
#include "util/TorchCompat.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace nmt {
namespace {

bool disabledByEnvironment() {
  const char* value = std::getenv("NMT_FLOAT_PRODUCTS");
  return value && std::string(value) == "torch";
}

std::atomic<int> chosen{-1};  // -1: not chosen yet

bool oneDnnCan(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) {
  if (floatProducts() != FloatProducts::OneDnn || c10::GradMode::is_enabled() ||
      compat::autocastEnabled(c10::DeviceType::CPU))
    return false;
  const auto fp32Cpu = [](const at::Tensor& t) {
    return t.device().is_cpu() && t.scalar_type() == at::kFloat && t.layout() == at::kStrided;
  };
  return fp32Cpu(x) && fp32Cpu(weight) && weight.dim() == 2 && x.dim() >= 1 && x.size(-1) == weight.size(1) &&
         (!bias.defined() || (fp32Cpu(bias) && bias.dim() == 1 && bias.size(0) == weight.size(0)));
}

// Whether a product is split in two (SplitProducts): a lone sentence's rows (its decoder steps, and its
// encoder's source positions, a row each), and enough weight that each half's time is well above handing
// one to the helper thread (every product of the full preset, 256 x 256 and up).
bool splits(int64_t M, int64_t out, int64_t in) {
  constexpr int64_t kRowsAtMost = 256, kSplitFrom = 1 << 16;  // weights of 64K floats (256 KB) and more
  return splittingProducts() && M > 0 && M <= kRowsAtMost && out >= 64 && out * in >= kSplitFrom;
}

// y [M, out] (beta 1: adds to it) += a [M, in] w^T with w's rows in two halves, each packed once, the
// second half on the helper thread (runInTwo); false (y untouched) where the halves cannot be packed.
bool multipliedInTwo(int64_t M, const float* a, int64_t lda, const at::Tensor& w, float beta, float* y) {
  const int64_t out = w.size(0), half = (out / 2 + 15) / 16 * 16;
  const auto first = packedWeight(w.narrow(0, 0, half)), second = packedWeight(w.narrow(0, half, out - half));
  if (!first.bytes || !second.bytes) return false;
  runInTwo([&] { onednn::sgemm(M, a, lda, first, beta, y, out); },
           [&] { onednn::sgemm(M, a, lda, second, beta, y + half, out); });
  return true;
}

// x W^T + b, relu(...) when asked.
at::Tensor linearProduct(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias, bool relu) {
  if (!oneDnnCan(x, weight, bias)) return relu ? at::relu(at::linear(x, weight, bias)) : at::linear(x, weight, bias);
  // A decoding step makes dozens of these: no LibTorch operator where plain code does (each costs
  // microseconds of dispatch), only the result's allocation and copies of operands not laid out
  // row by row.
  const int64_t in = weight.size(1), out = weight.size(0);
  const auto rowMajor = [](const at::Tensor& t) {
    return t.dim() == 2 && t.stride(1) == 1 && t.stride(0) >= t.size(1) ? t : t.reshape({-1, t.size(-1)}).contiguous();
  };
  const auto rows = x.is_contiguous() ? x : rowMajor(x);  // a narrowed weight needs no copy either
  const auto w = rowMajor(weight);
  const int64_t M = in > 0 ? rows.numel() / in : 0;
  const int64_t lda = rows.dim() == 2 ? rows.stride(0) : in;
  auto shape = x.sizes().vec();
  shape.back() = out;
  auto y = at::empty(shape, x.options());
  float* yp = y.data_ptr<float>();
  if (bias.defined()) {  // sgemm adds to y (never to the bias itself: y is new)
    const float* b = bias.contiguous().data_ptr<float>();
    for (int64_t m = 0; m < M; ++m) std::memcpy(yp + m * out, b, static_cast<std::size_t>(out) * sizeof(float));
  }
  const int threads = matrixThreads();
  const float* a = rows.data_ptr<float>();
  const int64_t ld = std::max<int64_t>(1, lda);
  const float beta = bias.defined() ? 1.0f : 0.0f;
  // on one thread, the weight packed once for oneDNN (a copy made above would be packed in vain)
  const bool packable = M > 0 && out > 0 && in > 0 && threads <= 1 && w.is_same(weight);
  if (!(packable && splits(M, out, in) && multipliedInTwo(M, a, ld, w, beta, yp))) {
    const auto packed = packable ? packedWeight(w) : onednn::PackedMatrix{};
    if (packed.bytes)
      onednn::sgemm(M, a, ld, packed, beta, yp);
    else if (M > 0 && out > 0)
      onednn::sgemm(M, out, in, a, ld, w.data_ptr<float>(), std::max<int64_t>(1, w.stride(0)), beta, yp, threads);
  }
  if (relu)  // as at::relu: below 0 becomes 0; -0 and NaN stay
    for (int64_t i = 0, n = M * out; i < n; ++i) yp[i] = yp[i] < 0.0f ? 0.0f : yp[i];
  return y;
}

}  // namespace

FloatProducts floatProducts() {
  if (const int c = chosen.load(); c >= 0) return static_cast<FloatProducts>(c);
  const auto found = onednn::available() && !disabledByEnvironment() ? FloatProducts::OneDnn : FloatProducts::Torch;
  chosen.store(static_cast<int>(found));
  return found;
}

void setFloatProducts(FloatProducts products) {
  if (!onednn::available()) products = FloatProducts::Torch;
  chosen.store(static_cast<int>(products));
}

std::string describeFloatProducts() {
  if (floatProducts() == FloatProducts::OneDnn)
    return "oneDNN sgemm (" + onednn::library() + (onednn::packedAvailable() ? "; on one thread weights packed once)" : ")");
  if (!onednn::available()) return "LibTorch's (no oneDNN sgemm in this LibTorch's libraries)";
  if (disabledByEnvironment()) return "LibTorch's (NMT_FLOAT_PRODUCTS=torch)";
  return "LibTorch's (set by setFloatProducts)";
}

at::Tensor inferenceLinear(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) {
  return linearProduct(x, weight, bias, /*relu=*/false);
}

at::Tensor inferenceLinearRelu(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) {
  return linearProduct(x, weight, bias, /*relu=*/true);
}

}  // namespace nmt
