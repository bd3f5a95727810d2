#include "model/Int8Linear.h"

#include "util/InputError.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>

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

}  // namespace

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

Int8Linear::Int8Linear(const at::Tensor& weight, const at::Tensor& bias)
    : bias_(bias.defined() ? bias.detach().to(at::kFloat).contiguous() : at::Tensor()) {
  const auto w = weight.detach().to(at::kFloat).contiguous();
  const auto scales = (w.abs().amax(1) / 127.0).clamp_min(1e-12).to(at::kDouble);
  quantized_ = at::quantize_per_channel(w, scales, at::zeros({w.size(0)}, at::kLong), 0, at::kQInt8);
  pack();
}

Int8Linear::Int8Linear(Quantized, at::Tensor quantized, at::Tensor bias)
    : quantized_(std::move(quantized)), bias_(std::move(bias)) {
  pack();
}

void Int8Linear::pack() {
  torch::jit::Stack stack{quantized_, bias_.defined() ? c10::optional<at::Tensor>(bias_) : c10::optional<at::Tensor>()};
  prepackOp().callBoxed(&stack);
  packed_ = std::move(stack[0]);
}

Int8Linear Int8Linear::rows(const at::Tensor& ids) const {
  const auto values = quantized_.int_repr().index_select(0, ids);
  const auto scales = quantized_.q_per_channel_scales().index_select(0, ids);
  const auto zeros = quantized_.q_per_channel_zero_points().index_select(0, ids);
  return Int8Linear(Quantized{}, at::_make_per_channel_quantized_tensor(values, scales, zeros, 0),
                    bias_.defined() ? bias_.index_select(0, ids) : at::Tensor());
}

at::Tensor Int8Linear::operator()(const at::Tensor& x) const {
  auto shape = x.sizes().vec();
  torch::jit::Stack stack{x.reshape({-1, shape.back()}).to(at::kFloat).contiguous(), packed_, false};
  dynamicOp().callBoxed(&stack);
  auto y = stack[0].toTensor();
  shape.back() = y.size(1);
  return y.view(shape);
}

}  // namespace nmt
