#pragma once

// The few LibTorch calls whose form differs between Debian's LibTorch 1.13 and LibTorch 2.x.
// Everything version-dependent lives here, nowhere else.

#include <ATen/autocast_mode.h>
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>
#include <c10/util/Exception.h>
#include <torch/version.h>

#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

#define NMT_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

// c10::Allocator::allocate is const until LibTorch 2.2; from 2.3 it is not, and copy_data is to define too.
#if NMT_TORCH_AT_LEAST(2, 3)
#define NMT_ALLOCATE_CONST
#else
#define NMT_ALLOCATE_CONST const
#endif

#if NMT_TORCH_AT_LEAST(2, 0)
#include <ATen/ops/scaled_dot_product_attention.h>
#else
#include <ATen/core/Tensor.h>
#endif

namespace c10d {
class Backend;
class ProcessGroup;
}  // namespace c10d

namespace nmt::compat {

// c10d's base class of Gloo's and NCCL's process groups: ProcessGroup until 1.13, Backend from 2.0.
#if NMT_TORCH_AT_LEAST(2, 0)
using ProcessGroupBase = c10d::Backend;
#else
using ProcessGroupBase = c10d::ProcessGroup;
#endif

inline std::string torchVersion() { return TORCH_VERSION; }

// A profiler event's (start, duration) in microseconds: KinetoEvent's startUs/durationUs until 2.0,
// startNs/durationNs from 2.1. A template, so that this header needs no profiler header.
template <typename Event>
std::pair<double, double> profilerEventUs(const Event& e) {
#if NMT_TORCH_AT_LEAST(2, 1)
  return {static_cast<double>(e.startNs()) / 1e3, static_cast<double>(e.durationNs()) / 1e3};
#else
  return {static_cast<double>(e.startUs()), static_cast<double>(e.durationUs())};
#endif
}

// Autocast per device type (CPU or CUDA); 2.4 replaced the per-backend setters.
inline bool autocastEnabled(c10::DeviceType type) {
#if NMT_TORCH_AT_LEAST(2, 4)
  return at::autocast::is_autocast_enabled(type);
#else
  return type == c10::DeviceType::CUDA ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled();
#endif
}

inline c10::ScalarType autocastDtype(c10::DeviceType type) {
#if NMT_TORCH_AT_LEAST(2, 4)
  return at::autocast::get_autocast_dtype(type);
#else
  return type == c10::DeviceType::CUDA ? at::autocast::get_autocast_gpu_dtype()
                                       : at::autocast::get_autocast_cpu_dtype();
#endif
}

inline void setAutocast(c10::DeviceType type, bool enabled, c10::ScalarType dtype) {
#if NMT_TORCH_AT_LEAST(2, 4)
  at::autocast::set_autocast_dtype(type, dtype);
  at::autocast::set_autocast_enabled(type, enabled);
#else
  if (type == c10::DeviceType::CUDA) {
    at::autocast::set_autocast_gpu_dtype(dtype);
    at::autocast::set_enabled(enabled);
  } else {
    at::autocast::set_autocast_cpu_dtype(dtype);
    at::autocast::set_cpu_enabled(enabled);
  }
#endif
}

// The key of a parameter's entry in a torch::optim optimizer's state(): its TensorImpl's address as text
// (c10::guts::to_string's form) in 1.13, the address itself in later versions; told apart by the map's key
// type. A template, so that this header needs no optimizer header.
template <typename Optimizer, typename Tensor>
auto optimizerStateKey(Optimizer& optimizer, const Tensor& parameter) {
  using Key = typename std::decay_t<decltype(optimizer.state())>::key_type;
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream text;
    text << parameter.unsafeGetTensorImpl();
    return Key(text.str());
  } else {
    return static_cast<Key>(parameter.unsafeGetTensorImpl());
  }
}

// LibTorch's fused attention, at::scaled_dot_product_attention (from 2.0; on a GPU its flash and
// memory-efficient kernels, which keep no attention weights).
constexpr bool kHasFusedAttention = NMT_TORCH_AT_LEAST(2, 0);

// softmax(q k^T / sqrt(dk)) v over the keys `allowed` lets each query see, with dropout on the weights:
// q [B, H, Sq, dk], k and v [B, H, Sk, dk], allowed bool broadcasting to [B, H, Sq, Sk] (true: seen;
// undefined: every key). causal (Sq == Sk, without `allowed`): query i sees keys 0..i. An error where
// !kHasFusedAttention.
inline at::Tensor fusedAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                 const at::Tensor& allowed, double dropout, bool causal) {
#if NMT_TORCH_AT_LEAST(2, 0)
  return at::scaled_dot_product_attention(q, k, v, allowed.defined() ? c10::optional<at::Tensor>(allowed) : c10::nullopt,
                                          dropout, causal);
#else
  (void)q, (void)k, (void)v, (void)allowed, (void)dropout, (void)causal;
  TORCH_CHECK(false, "fused attention needs LibTorch 2.0 or later (this is ", TORCH_VERSION, ")");
  return at::Tensor();
#endif
}

// c10d's TCPStore: 2.2 added the libuv server (the default from 2.4), which Debian 13's LibTorch 2.6
// lacks ("use_libuv was requested but PyTorch was build without libuv support"). Turns it off where
// the option exists; returns whether it did.
template <typename StoreOptions>
auto disableLibuvStore(StoreOptions& options, int) -> decltype(options.useLibUV = false, true) {
  options.useLibUV = false;
  return true;
}
template <typename StoreOptions>
bool disableLibuvStore(StoreOptions&, long) {
  return false;
}
template <typename StoreOptions>
bool disableLibuvStore(StoreOptions& options) {
  return disableLibuvStore(options, 0);
}

// A warning handler that sees each warning's text (2.0 hands handlers a c10::Warning, 1.13 its parts):
// take(text) keeps a warning, the others go on to the handler it replaced. It is the handler while it
// lives (the calling thread's from 2.0, the process's before); construct it where no warning can come.
class TextWarningHandler : public c10::WarningHandler {
 public:
  TextWarningHandler() : previous_(handler()) { setHandler(this); }
  ~TextWarningHandler() override { setHandler(previous_); }
  TextWarningHandler(const TextWarningHandler&) = delete;
  TextWarningHandler& operator=(const TextWarningHandler&) = delete;

#if NMT_TORCH_AT_LEAST(2, 0)
  void process(const c10::Warning& warning) override {
    if (!take(warning.msg())) previous_->process(warning);
  }
#else
  void process(const c10::SourceLocation& where, const std::string& text, const bool verbatim) override {
    if (!take(text)) previous_->process(where, text, verbatim);
  }
#endif

 protected:
  virtual bool take(const std::string& text) = 0;

 private:
#if NMT_TORCH_AT_LEAST(2, 0)
  static c10::WarningHandler* handler() { return c10::WarningUtils::get_warning_handler(); }
  static void setHandler(c10::WarningHandler* h) { c10::WarningUtils::set_warning_handler(h); }
#else
  static c10::WarningHandler* handler() { return c10::Warning::get_warning_handler(); }
  static void setHandler(c10::WarningHandler* h) { c10::Warning::set_warning_handler(h); }
#endif
  c10::WarningHandler* previous_;
};

}  // namespace nmt::compat
