#include "kernels/Int8Linear.h"

#include "kernels/OneDnnBlas.h"
#include "kernels/VectorClones.h"
#include "util/BlasKernels.h"
#include "util/InputError.h"
#include "util/Threads.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <tuple>
#include <utility>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace nmt {
namespace {

// Looked up once: operator() runs at every decoder step.
const c10::OperatorHandle& prepackOp() {
  static const auto handle = c10::Dispatcher::singleton().findSchemaOrThrow("quantized::linear_prepack", "");
  return handle;
}
const c10::OperatorHandle& dynamicOp() {
  static const auto handle = c10::Dispatcher::singleton().findSchemaOrThrow("quantized::linear_dynamic", "");
  return handle;
}

std::atomic<int> chosenActivations{-1};  // -1: not chosen yet
std::atomic<int> chosenProducts{-1};     // likewise

// What q in [-qmax, qmax] is shifted by to lie in u8: 128 (0..255), or 64 for 7 bits (1..127).
int activationShift(bool reduceRange) { return reduceRange ? 64 : 128; }

// The largest |x| of a row of K. |x| compares as its bits do (sign cleared): an integer maximum, which
// vectorizes (a float one does not). Inlined into each clone below, as the next ones are.
inline float largestMagnitude(const float* row, int64_t K) {
  uint32_t largestBits = 0;
  for (int64_t k = 0; k < K; ++k) {
    uint32_t bits;
    std::memcpy(&bits, row + k, sizeof bits);
    largestBits = std::max(largestBits, bits & 0x7fffffffu);
  }
  float largest;
  std::memcpy(&largest, &largestBits, sizeof largest);
  return largest;
}

// One row of K on its own symmetric scale (largest |x| / qmax, into *scale), q = round(x / scale) in
// [-qmax, qmax], stored as q + shift.
inline void quantizeRow(const float* row, int64_t K, float qmax, int shift, uint8_t* q, float* scale) {
  const float largest = largestMagnitude(row, K);
  *scale = largest > 0.0f ? largest / qmax : 1.0f;
  const float inverse = 1.0f / *scale;
  for (int64_t k = 0; k < K; ++k) {
    const float v = std::min(qmax, std::max(-qmax, row[k] * inverse));
    q[k] = static_cast<uint8_t>(static_cast<int>(v + (v >= 0.0f ? 0.5f : -0.5f)) + shift);
  }
}

// Each row of x [M, K] quantized on its own scale (quantizeRow).
NMT_VECTOR_CLONES void quantizeRows(const float* x, int64_t M, int64_t K, float qmax, int shift, uint8_t* out,
                                    float* scales) {
  for (int64_t m = 0; m < M; ++m) quantizeRow(x + m * K, K, qmax, shift, out + m * K, scales + m);
}

// Each row of x [M, K] layer-normalized (mean 0, variance 1, times gamma plus beta) into `normalized`
// [K] (one row at a time: it stays in the cache), then quantized (quantizeRow).
NMT_VECTOR_CLONES void normalizeAndQuantizeRows(const float* x, int64_t M, int64_t K, const float* gamma,
                                                const float* beta, float eps, float qmax, int shift, float* normalized,
                                                uint8_t* out, float* scales) {
  const int64_t whole = K - K % 8;
  for (int64_t m = 0; m < M; ++m) {
    const float* row = x + m * K;
    Floats8 lanes = {};
    for (int64_t k = 0; k < whole; k += 8) {
      Floats8 v;
      load8(v, row + k);
      lanes += v;
    }
    float sum = laneSum(lanes);
    for (int64_t k = whole; k < K; ++k) sum += row[k];
    const float mean = sum / static_cast<float>(K);
    lanes = Floats8{};
    for (int64_t k = 0; k < whole; k += 8) {
      Floats8 v;
      load8(v, row + k);
      v -= mean;
      lanes += v * v;
    }
    float squares = laneSum(lanes);
    for (int64_t k = whole; k < K; ++k) squares += (row[k] - mean) * (row[k] - mean);
    const float inverseDeviation = 1.0f / std::sqrt(squares / static_cast<float>(K) + eps);
    for (int64_t k = 0; k < K; ++k) normalized[k] = (row[k] - mean) * inverseDeviation * gamma[k] + beta[k];
    quantizeRow(normalized, K, qmax, shift, out + m * K, scales + m);
  }
}

// One element of y: sum x rowScale x columnScale (+ bias), then max(y, 0) if relu.
inline float scaledSum(int32_t sum, float rowScale, float columnScale, const float* bias, int64_t n, bool relu) {
  float y = static_cast<float>(sum) * rowScale * columnScale;
  if (bias) y += bias[n];
  return relu ? (y > 0.0f ? y : 0.0f) : y;
}

// The int32 sums [M, N] made floats in place (scaledSum): the product's output is one buffer, not
// two (at 8,000 columns, 2 MB a step less to go through the caches). Eight at a time, each read
// before it is written, through memcpy (the same bytes are int32 first, float after).
NMT_VECTOR_CLONES void scaleSumsInPlace(void* sumsThenY, int64_t M, int64_t N, const float* rowScales,
                                        const float* columnScales, const float* bias, bool relu) {
  char* bytes = static_cast<char*>(sumsThenY);
  for (int64_t m = 0; m < M; ++m) {
    const float rowScale = rowScales[m];
    char* row = bytes + m * N * 4;
    int64_t n = 0;
    for (; n + 8 <= N; n += 8) {
      Ints8 s;
      std::memcpy(&s, row + n * 4, sizeof s);
      Floats8 c, y = __builtin_convertvector(s, Floats8) * rowScale;
      load8(c, columnScales + n);
      y = y * c;
      if (bias) {
        Floats8 b;
        load8(b, bias + n);
        y = y + b;
      }
      if (relu) y = y > 0.0f ? y : Floats8{};
      std::memcpy(row + n * 4, &y, sizeof y);
    }
    for (; n < N; ++n) {
      int32_t s;
      std::memcpy(&s, row + n * 4, sizeof s);
      const float y = scaledSum(s, rowScale, columnScales[n], bias, n, relu);
      std::memcpy(row + n * 4, &y, sizeof y);
    }
  }
}

// Each row of w [N, K] on its own scale: scale = max(largest |w| / 127, 1e-12), values = w / scale
// rounded half to even and kept in [-127, 127]; one pass a row, what LibTorch's abs, amax, division,
// clamp_min, division, round and clamp gave (unit test), without their [N, K] temporaries.
NMT_VECTOR_CLONES void quantizeWeightRows(const float* w, int64_t N, int64_t K, float* scales, int8_t* values) {
  for (int64_t n = 0; n < N; ++n) {
    const float* row = w + n * K;
    const float scale = std::max(largestMagnitude(row, K) / 127.0f, 1e-12f);
    scales[n] = scale;
    int8_t* out = values + n * K;
    for (int64_t k = 0; k < K; ++k)
      out[k] = static_cast<int8_t>(std::min(127.0f, std::max(-127.0f, std::nearbyint(row[k] / scale))));
  }
}

// sums[n] = factor x the sum of row n of values [N, K].
NMT_VECTOR_CLONES void sumRows(const int8_t* values, int64_t N, int64_t K, int32_t factor, int32_t* sums) {
  for (int64_t n = 0; n < N; ++n) {
    int32_t sum = 0;
    for (int64_t k = 0; k < K; ++k) sum += values[n * K + k];
    sums[n] = sum * factor;
  }
}

}  // namespace

struct Int8Linear::Packed {
  std::once_flag once;
  onednn::PackedMatrix weights;  // no bytes: not packed (no packed GEMM)
};

Int8Activations int8ActivationsFor(bool avx512vnni, const char* isaLimit) {
  if (!avx512vnni) return Int8Activations::Reduced7Bit;
  return oneDnnIsaAllows(isaLimit, "AVX512_CORE_VNNI") ? Int8Activations::Full8Bit : Int8Activations::Reduced7Bit;
}


Int8Activations int8Activations() {
  if (const int chosen = chosenActivations.load(); chosen >= 0) return static_cast<Int8Activations>(chosen);
  const auto found = int8ActivationsFor(detectCpuFeatures().avx512vnni, oneDnnIsaLimit().second);
  chosenActivations.store(static_cast<int>(found));
  return found;
}

void setInt8Activations(Int8Activations activations) { chosenActivations.store(static_cast<int>(activations)); }

std::string describeInt8Activations() {
  if (int8Activations() == Int8Activations::Full8Bit) return "8-bit activations (AVX-512 VNNI)";
  if (!detectCpuFeatures().avx512vnni)
    return "7-bit activations (no AVX-512 VNNI: u8 x s8 pair sums in 16 bits must not saturate)";
  const auto [name, value] = oneDnnIsaLimit();
  if (int8ActivationsFor(true, value) == Int8Activations::Reduced7Bit)
    return "7-bit activations (" + name + "=" + value + " keeps oneDNN off AVX-512 VNNI)";
  return "7-bit activations (set by setInt8Activations)";
}

Int8Products int8Products() {
  if (const int chosen = chosenProducts.load(); chosen >= 0) return static_cast<Int8Products>(chosen);
  return onednn::available() ? Int8Products::OneDnn : Int8Products::Torch;
}

void setInt8Products(Int8Products products) {
  if (!onednn::available()) products = Int8Products::Torch;
  chosenProducts.store(static_cast<int>(products));
}

bool int8EveryLayer() { return int8Products() == Int8Products::OneDnn; }

void useInt8Engine() {
  if (int8Products() == Int8Products::OneDnn) return;  // Int8Linear calls oneDNN's int8 product itself
  std::string found;
  for (const auto engine : at::globalContext().supportedQEngines()) {
    const std::string name = c10::toString(engine);
    if (name == "ONEDNN" || name == "X86" || name == "FBGEMM") {
      at::globalContext().setQEngine(engine);
      return;
    }
    if (engine != at::QEngine::NoQEngine) found += (found.empty() ? "" : ", ") + name;
  }
  throw OptionError("`int8` needs LibTorch's oneDNN, x86 or FBGEMM quantized engine; this LibTorch has " +
                   (found.empty() ? std::string("none") : found) + " (QNNPACK is slower than fp32 on this CPU)");
}

std::shared_ptr<const Int8Linear> replaceWithInt8(at::Tensor& weight, const at::Tensor& bias) {
  auto int8 = std::make_shared<const Int8Linear>(weight, bias);
  at::NoGradGuard noGrad;
  weight.set_(at::empty({0, weight.size(1)}, weight.options()));
  return int8;
}

Int8Linear::Int8Linear(const at::Tensor& weight, const at::Tensor& bias)
    : bias_(bias.defined() ? bias.detach().to(at::kFloat).contiguous() : at::Tensor()),
      reduceRange_(int8Activations() == Int8Activations::Reduced7Bit),
      oneDnn_(int8Products() == Int8Products::OneDnn) {
  std::tie(values_, scales_) = quantizeWeight(weight);
  prepare();
}

std::pair<at::Tensor, at::Tensor> Int8Linear::quantizeWeight(const at::Tensor& weight) {
  const auto w = weight.detach().to(at::kFloat).contiguous();
  TORCH_CHECK(w.dim() == 2 && w.device().is_cpu(), "Int8Linear: weight [out, in] on the CPU");
  auto scales = at::empty({w.size(0)}, w.options());
  auto values = at::empty(w.sizes(), w.options().dtype(at::kChar));
  quantizeWeightRows(w.data_ptr<float>(), w.size(0), w.size(1), scales.data_ptr<float>(), values.data_ptr<int8_t>());
  return {values, scales};
}

Int8Linear::Int8Linear(Quantized, at::Tensor values, at::Tensor scales, at::Tensor bias, bool reduceRange, bool oneDnn)
    : values_(std::move(values)), scales_(std::move(scales)), bias_(std::move(bias)), reduceRange_(reduceRange),
      oneDnn_(oneDnn) {
  prepare();
}

void Int8Linear::prepare() {
  if (oneDnn_) {
    // x is shifted into u8 (q + shift) for the u8 x s8 product: take shift x each row's sum back off
    const int shift = activationShift(reduceRange_);
    const auto values = values_.contiguous();
    const int64_t N = values.size(0), K = values.size(1);
    columnOffsets_ = at::empty({N}, values.options().dtype(at::kInt));
    sumRows(values.data_ptr<int8_t>(), N, K, -shift, columnOffsets_.data_ptr<int32_t>());
    values_ = values;
    packed_ = std::make_shared<Packed>();
    return;
  }
  torch::jit::Stack stack{at::_make_per_tensor_quantized_tensor(values_, 1.0, 0), c10::optional<at::Tensor>()};
  prepackOp().callBoxed(&stack);
  torchPacked_ = std::move(stack[0]);
}

Int8Linear Int8Linear::rows(const at::Tensor& ids) const {
  return Int8Linear(Quantized{}, values_.index_select(0, ids), scales_.index_select(0, ids),
                    bias_.defined() ? bias_.index_select(0, ids) : at::Tensor(), reduceRange_, oneDnn_);
}

Int8Linear Int8Linear::stacked(const std::vector<const Int8Linear*>& parts) {
  TORCH_CHECK(!parts.empty(), "Int8Linear::stacked: no layers");
  std::vector<at::Tensor> values, scales, biases;
  bool biased = parts.front()->bias_.defined();
  for (const auto* part : parts) {
    TORCH_CHECK(part->values_.size(1) == parts.front()->values_.size(1) && part->reduceRange_ == parts.front()->reduceRange_ &&
                    part->oneDnn_ == parts.front()->oneDnn_ && part->bias_.defined() == biased,
                "Int8Linear::stacked: layers of other inputs, activations, products or biases");
    values.push_back(part->values_);
    scales.push_back(part->scales_);
    if (biased) biases.push_back(part->bias_);
  }
  return Int8Linear(Quantized{}, at::cat(values), at::cat(scales), biased ? at::cat(biases) : at::Tensor(),
                    parts.front()->reduceRange_, parts.front()->oneDnn_);
}

at::Tensor Int8Linear::operator()(const at::Tensor& x) const { return product(x, /*relu=*/false, nullptr); }

at::Tensor Int8Linear::relu(const at::Tensor& x) const { return product(x, /*relu=*/true, nullptr); }

at::Tensor Int8Linear::operator()(const at::Tensor& x, const InputNorm& norm) const {
  return product(x, /*relu=*/false, &norm);
}

at::Tensor Int8Linear::relu(const at::Tensor& x, const InputNorm& norm) const { return product(x, /*relu=*/true, &norm); }

at::Tensor Int8Linear::product(const at::Tensor& x, bool relu, const InputNorm* norm) const {
  auto shape = x.sizes().vec();
  auto rows = x.reshape({-1, shape.back()}).to(at::kFloat).contiguous();
  if (norm && (!oneDnn_ || !norm->weight.defined() || !norm->bias.defined())) {  // LibTorch's layer norm first
    rows = at::layer_norm(rows, {rows.size(1)}, norm->weight, norm->bias, norm->eps);
    norm = nullptr;
  }
  at::Tensor y;
  if (oneDnn_) {
    y = productThroughOneDnn(rows, relu, norm);
  } else {
    torch::jit::Stack stack{rows, torchPacked_, reduceRange_};
    dynamicOp().callBoxed(&stack);
    y = stack[0].toTensor();
    y = bias_.defined() ? at::addcmul(bias_, y, scales_) : y.mul_(scales_);
    if (relu) y.relu_();
  }
  shape.back() = y.size(1);
  return y.view(shape);
}

at::Tensor Int8Linear::productThroughOneDnn(const at::Tensor& x, bool relu, const InputNorm* norm) const {
  const int64_t M = x.size(0), K = x.size(1), N = values_.size(0);
  auto quantized = at::empty({M, K}, x.options().dtype(at::kByte));
  std::vector<float> rowScales(static_cast<std::size_t>(M));
  const float qmax = reduceRange_ ? 63.0f : 127.0f;
  if (norm) {
    const auto gamma = norm->weight.to(at::kFloat).contiguous(), beta = norm->bias.to(at::kFloat).contiguous();
    TORCH_CHECK(gamma.numel() == K && beta.numel() == K, "Int8Linear: a layer norm of ", gamma.numel(), " for ", K, " inputs");
    std::vector<float> normalized(static_cast<std::size_t>(K));
    normalizeAndQuantizeRows(x.data_ptr<float>(), M, K, gamma.data_ptr<float>(), beta.data_ptr<float>(),
                             static_cast<float>(norm->eps), qmax, activationShift(reduceRange_), normalized.data(),
                             quantized.data_ptr<uint8_t>(), rowScales.data());
  } else {
    quantizeRows(x.data_ptr<float>(), M, K, qmax, activationShift(reduceRange_), quantized.data_ptr<uint8_t>(),
                 rowScales.data());
  }
  // the int32 sums, then (scaleSumsInPlace) the float products
  auto y = at::empty({M, N}, x.options());
  static_assert(sizeof(int32_t) == sizeof(float));
  auto* sums = static_cast<int32_t*>(static_cast<void*>(y.data_ptr<float>()));
  const int threads = matrixThreads();
  if (M > 0 && N > 0) {
    if (threads <= 1 && onednn::packedAvailable())
      std::call_once(packed_->once, [&] { packed_->weights = onednn::packS8(N, K, values_.data_ptr<int8_t>()); });
    if (threads <= 1 && packed_->weights.bytes)
      onednn::gemmU8S8(M, quantized.data_ptr<uint8_t>(), packed_->weights, columnOffsets_.data_ptr<int32_t>(), sums);
    else
      onednn::gemmU8S8(M, N, K, quantized.data_ptr<uint8_t>(), values_.data_ptr<int8_t>(),
                       columnOffsets_.data_ptr<int32_t>(), sums, threads);
  }
  scaleSumsInPlace(sums, M, N, rowScales.data(), scales_.data_ptr<float>(), bias_.defined() ? bias_.data_ptr<float>() : nullptr,
                   relu);
  return y;
}

}  // namespace nmt
