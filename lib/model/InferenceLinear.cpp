#include "model/InferenceLinear.h"

#include "util/Threads.h"
#include "util/TorchCompat.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>

namespace nmt {
namespace {

// oneDNN's C interface (dnnl.h, the same in oneDNN 2 and 3): row-major C = alpha op(A) op(B) + beta C.
// Declared here rather than included: the library is LibTorch's dependency, found at run time, so
// that nmt builds and runs where LibTorch has none (or hides it), and needs no -dev package.
using Sgemm = int (*)(char transa, char transb, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                      int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc);
using SetOmpThreads = void (*)(int);
using GetOmpThreads = int (*)();

struct OneDnn {
  Sgemm sgemm = nullptr;
  SetOmpThreads setThreads = nullptr;  // oneDNN's OpenMP threads are the calling thread's OpenMP count
  GetOmpThreads getThreads = nullptr;
  std::string library;
};

void* symbol(const char* name, std::string& from) {
  if (void* found = dlsym(RTLD_DEFAULT, name)) {
    Dl_info info{};
    if (dladdr(found, &info) && info.dli_fname) {
      const std::string path = info.dli_fname;
      from = path.substr(path.rfind('/') + 1);
    }
    return found;
  }
  // loaded without RTLD_GLOBAL (a Python extension's LibTorch): ask the libraries themselves
  for (const char* library : {"libdnnl.so.3", "libdnnl.so.2"})
    if (void* handle = dlopen(library, RTLD_NOW | RTLD_NOLOAD))
      if (void* found = dlsym(handle, name)) {
        from = library;
        return found;
      }
  return nullptr;
}

const OneDnn& oneDnn() {
  static const OneDnn found = [] {
    OneDnn d;
    d.sgemm = reinterpret_cast<Sgemm>(symbol("dnnl_sgemm", d.library));
    std::string unused;
    d.setThreads = reinterpret_cast<SetOmpThreads>(symbol("omp_set_num_threads", unused));
    d.getThreads = reinterpret_cast<GetOmpThreads>(symbol("omp_get_max_threads", unused));
    if (!d.setThreads || !d.getThreads) d.sgemm = nullptr;  // its threads could not be set: not used
    return d;
  }();
  return found;
}

bool disabledByEnvironment() {
  const char* value = std::getenv("NMT_FLOAT_PRODUCTS");
  return value && std::string(value) == "torch";
}

std::atomic<int> chosen{-1};  // -1: not chosen yet

// Runs one product on `threads` OpenMP threads and puts the calling thread's count back, so that
// LibTorch's own OpenMP loops keep their single thread (Threads.h says why).
class OmpThreads {
 public:
  OmpThreads(const OneDnn& d, int threads) : d_(d), saved_(d.getThreads()) {
    if (threads != saved_) d_.setThreads(threads);
  }
  ~OmpThreads() {
    if (d_.getThreads() != saved_) d_.setThreads(saved_);
  }
  OmpThreads(const OmpThreads&) = delete;
  OmpThreads& operator=(const OmpThreads&) = delete;

 private:
  const OneDnn& d_;
  int saved_;
};

bool oneDnnCan(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) {
  if (floatProducts() != FloatProducts::OneDnn || c10::GradMode::is_enabled() || compat::autocastEnabled(c10::DeviceType::CPU))
    return false;
  const auto fp32Cpu = [](const at::Tensor& t) { return t.device().is_cpu() && t.scalar_type() == at::kFloat; };
  return fp32Cpu(x) && fp32Cpu(weight) && weight.dim() == 2 && x.dim() >= 1 && x.size(-1) == weight.size(1) &&
         (!bias.defined() || (fp32Cpu(bias) && bias.dim() == 1 && bias.size(0) == weight.size(0))) &&
         !x.is_quantized() && x.layout() == at::kStrided && weight.layout() == at::kStrided;
}

}  // namespace

FloatProducts floatProducts() {
  if (const int c = chosen.load(); c >= 0) return static_cast<FloatProducts>(c);
  const auto found = oneDnn().sgemm && !disabledByEnvironment() ? FloatProducts::OneDnn : FloatProducts::Torch;
  chosen.store(static_cast<int>(found));
  return found;
}

void setFloatProducts(FloatProducts products) {
  if (!oneDnn().sgemm) products = FloatProducts::Torch;
  chosen.store(static_cast<int>(products));
}

std::string describeFloatProducts() {
  if (floatProducts() == FloatProducts::OneDnn) return "oneDNN sgemm (" + oneDnn().library + ")";
  if (!oneDnn().sgemm) return "LibTorch's (no oneDNN sgemm in this LibTorch's libraries)";
  if (disabledByEnvironment()) return "LibTorch's (NMT_FLOAT_PRODUCTS=torch)";
  return "LibTorch's (set by setFloatProducts)";
}

at::Tensor inferenceLinear(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) {
  if (!oneDnnCan(x, weight, bias)) return at::linear(x, weight, bias);
  const int64_t in = weight.size(1), out = weight.size(0);
  // rows of x and of W as they lie when each row is contiguous (a narrowed weight needs no copy)
  const auto rowMajor = [](const at::Tensor& t) { return t.stride(-1) == 1 && t.stride(0) >= t.size(-1) ? t : t.contiguous(); };
  const auto rows = rowMajor(x.dim() == 2 ? x : x.reshape({-1, in}));
  const auto w = rowMajor(weight);
  const int64_t M = rows.size(0);
  // sgemm adds to y: a new tensor always (contiguous() of one row's expanded bias is the bias itself)
  auto y = at::empty({M, out}, x.options());
  if (bias.defined()) y.copy_(bias.unsqueeze(0).expand({M, out}));
  if (M > 0 && out > 0) {
    const auto& d = oneDnn();
    const OmpThreads threads(d, std::max(1, matrixThreads()));
    const int status = d.sgemm('N', 'T', M, out, in, 1.0f, rows.data_ptr<float>(), std::max<int64_t>(1, rows.stride(0)),
                               w.data_ptr<float>(), std::max<int64_t>(1, w.stride(0)), bias.defined() ? 1.0f : 0.0f,
                               y.data_ptr<float>(), out);
    if (status != 0) throw std::runtime_error("oneDNN sgemm failed with status " + std::to_string(status));
  }
  auto shape = x.sizes().vec();
  shape.back() = out;
  return y.view(shape);
}

}  // namespace nmt
