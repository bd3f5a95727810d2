#include "model/OneDnnBlas.h"

#include <dlfcn.h>

#include <stdexcept>

namespace nmt::onednn {
namespace {

using Sgemm = int (*)(char transa, char transb, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                      int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc);
using GemmU8S8S32 = int (*)(char transa, char transb, char offsetc, int64_t M, int64_t N, int64_t K, float alpha,
                            const uint8_t* A, int64_t lda, uint8_t ao, const int8_t* B, int64_t ldb, int8_t bo,
                            float beta, int32_t* C, int64_t ldc, const int32_t* co);
using SetOmpThreads = void (*)(int);
using GetOmpThreads = int (*)();

struct Functions {
  Sgemm sgemm = nullptr;
  GemmU8S8S32 gemmU8S8S32 = nullptr;
  SetOmpThreads setThreads = nullptr;  // oneDNN runs on the calling thread's OpenMP count
  GetOmpThreads getThreads = nullptr;
  std::string library;
};

void* symbol(const char* name, std::string* from) {
  if (void* found = dlsym(RTLD_DEFAULT, name)) {
    Dl_info info{};
    if (from && dladdr(found, &info) && info.dli_fname) {
      const std::string path = info.dli_fname;
      *from = path.substr(path.rfind('/') + 1);
    }
    return found;
  }
  // loaded without RTLD_GLOBAL (as a Python extension's LibTorch is): ask the libraries themselves
  for (const char* library : {"libdnnl.so.3", "libdnnl.so.2", "libgomp.so.1"})
    if (void* handle = dlopen(library, RTLD_NOW | RTLD_NOLOAD))
      if (void* found = dlsym(handle, name)) {
        if (from) *from = library;
        return found;
      }
  return nullptr;
}

const Functions& functions() {
  static const Functions found = [] {
    Functions f;
    f.sgemm = reinterpret_cast<Sgemm>(symbol("dnnl_sgemm", &f.library));
    f.gemmU8S8S32 = reinterpret_cast<GemmU8S8S32>(symbol("dnnl_gemm_u8s8s32", nullptr));
    f.setThreads = reinterpret_cast<SetOmpThreads>(symbol("omp_set_num_threads", nullptr));
    f.getThreads = reinterpret_cast<GetOmpThreads>(symbol("omp_get_max_threads", nullptr));
    if (!f.sgemm || !f.gemmU8S8S32 || !f.setThreads || !f.getThreads) f = Functions{};  // all or nothing
    return f;
  }();
  return found;
}

// Runs one call on `threads` OpenMP threads, then puts the calling thread's count back.
class OmpThreads {
 public:
  OmpThreads(const Functions& f, int threads) : f_(f), saved_(f.getThreads()) {
    if (threads < 1) threads = 1;
    if (threads != saved_) f_.setThreads(threads);
  }
  ~OmpThreads() {
    if (f_.getThreads() != saved_) f_.setThreads(saved_);
  }
  OmpThreads(const OmpThreads&) = delete;
  OmpThreads& operator=(const OmpThreads&) = delete;

 private:
  const Functions& f_;
  int saved_;
};

void check(int status, const char* what) {
  if (status != 0) throw std::runtime_error(std::string("oneDNN ") + what + " failed with status " + std::to_string(status));
}

}  // namespace

bool available() { return functions().sgemm != nullptr; }

std::string library() { return functions().library; }

void sgemm(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* W, int64_t ldw, float beta,
           float* C, int threads) {
  const auto& f = functions();
  const OmpThreads scope(f, threads);
  check(f.sgemm('N', 'T', M, N, K, 1.0f, A, lda, W, ldw, beta, C, N), "sgemm");
}

void gemmU8S8(int64_t M, int64_t N, int64_t K, const uint8_t* A, const int8_t* W, const int32_t* columnOffsets,
              int32_t* C, int threads) {
  const auto& f = functions();
  const OmpThreads scope(f, threads);
  // offsetc 'R': co holds one value per column of C (oneDNN calls it a row offset: a row vector)
  check(f.gemmU8S8S32('N', 'T', 'R', M, N, K, 1.0f, A, K, 0, W, K, 0, 0.0f, C, N, columnOffsets), "gemm_u8s8s32");
}

}  // namespace nmt::onednn
