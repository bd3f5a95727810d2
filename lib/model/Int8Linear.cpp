#include "model/Int8Linear.h"

#include "util/BlasKernels.h"
#include "util/InputError.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>

#include <atomic>
#include <utility>
#include <cctype>
#include <cstdlib>

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

bool startsWith(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

}  // namespace

Int8Activations int8ActivationsFor(bool avx512vnni, const char* isaLimit) {
  if (!avx512vnni) return Int8Activations::Reduced7Bit;
  if (!isaLimit || !*isaLimit) return Int8Activations::Full8Bit;
  std::string limit(isaLimit);
  for (auto& c : limit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  // oneDNN's ISA names from AVX512_CORE_VNNI upwards (and DEFAULT/ALL: no limit)
  for (const char* vnni : {"ALL", "DEFAULT", "AVX512_CORE_VNNI", "AVX512_CORE_BF16", "AVX512_CORE_FP16", "AVX512_CORE_AMX"})
    if (startsWith(limit, vnni)) return Int8Activations::Full8Bit;
  return Int8Activations::Reduced7Bit;
}

// oneDNN's own limit on the instructions it uses: its variable, and what it says; {"", nullptr} when unset.
static std::pair<std::string, const char*> isaLimit() {
  for (const char* name : {"ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA"})
    if (const char* value = std::getenv(name); value && *value) return {name, value};
  return {"", nullptr};
}

Int8Activations int8Activations() {
  if (const int chosen = chosenActivations.load(); chosen >= 0) return static_cast<Int8Activations>(chosen);
  const auto found = int8ActivationsFor(detectCpuFeatures().avx512vnni, isaLimit().second);
  chosenActivations.store(static_cast<int>(found));
  return found;
}

void setInt8Activations(Int8Activations activations) { chosenActivations.store(static_cast<int>(activations)); }

std::string describeInt8Activations() {
  if (int8Activations() == Int8Activations::Full8Bit) return "8-bit activations (AVX-512 VNNI)";
  if (!detectCpuFeatures().avx512vnni)
    return "7-bit activations (no AVX-512 VNNI: u8 x s8 pair sums in 16 bits must not saturate)";
  const auto [name, value] = isaLimit();
  if (int8ActivationsFor(true, value) == Int8Activations::Reduced7Bit)
    return "7-bit activations (" + name + "=" + value + " keeps oneDNN off AVX-512 VNNI)";
  return "7-bit activations (set by setInt8Activations)";
}

void useInt8Engine() {
  std::string found;
  for (const auto engine : at::globalContext().supportedQEngines()) {
    const std::string name = c10::toString(engine);
    if (name == "ONEDNN" || name == "X86" || name == "FBGEMM") {
      at::globalContext().setQEngine(engine);
      return;
    }
    if (engine != at::QEngine::NoQEngine) found += (found.empty() ? "" : ", ") + name;
  }
  throw InputError("--int8 needs LibTorch's oneDNN, x86 or FBGEMM quantized engine; this LibTorch has " +
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
      reduceRange_(int8Activations() == Int8Activations::Reduced7Bit) {
  const auto w = weight.detach().to(at::kFloat).contiguous();
  scales_ = (w.abs().amax(1) / 127.0).clamp_min(1e-12);
  values_ = (w / scales_.unsqueeze(1)).round_().clamp_(-127, 127).to(at::kChar);
  pack();
}

Int8Linear::Int8Linear(Quantized, at::Tensor values, at::Tensor scales, at::Tensor bias, bool reduceRange)
    : values_(std::move(values)), scales_(std::move(scales)), bias_(std::move(bias)), reduceRange_(reduceRange) {
  pack();
}

void Int8Linear::pack() {
  torch::jit::Stack stack{at::_make_per_tensor_quantized_tensor(values_, 1.0, 0), c10::optional<at::Tensor>()};
  prepackOp().callBoxed(&stack);
  packed_ = std::move(stack[0]);
}

Int8Linear Int8Linear::rows(const at::Tensor& ids) const {
  return Int8Linear(Quantized{}, values_.index_select(0, ids), scales_.index_select(0, ids),
                    bias_.defined() ? bias_.index_select(0, ids) : at::Tensor(), reduceRange_);
}

at::Tensor Int8Linear::operator()(const at::Tensor& x) const {
  auto shape = x.sizes().vec();
  torch::jit::Stack stack{x.reshape({-1, shape.back()}).to(at::kFloat).contiguous(), packed_, reduceRange_};
  dynamicOp().callBoxed(&stack);
  auto y = stack[0].toTensor();
  y = bias_.defined() ? at::addcmul(bias_, y, scales_) : y.mul_(scales_);
  shape.back() = y.size(1);
  return y.view(shape);
}

}  // namespace nmt
