#include "kernels/OneDnnBlas.h"

#include <dlfcn.h>

#include <cstdlib>
#include <stdexcept>

namespace nmt::onednn {
namespace {

using Sgemm = int (*)(char transa, char transb, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                      int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc);
using GemmU8S8S32 = int (*)(char transa, char transb, char offsetc, int64_t M, int64_t N, int64_t K, float alpha,
                            const uint8_t* A, int64_t lda, uint8_t ao, const int8_t* B, int64_t ldb, int8_t bo,
                            float beta, int32_t* C, int64_t ldc, const int32_t* co);
// dnnl::impl::cpu's packed GEMM (src/cpu/gemm/gemm_pack.hpp, oneDNN 2 and 3): column-major,
// BLAS-style pointers to every argument
using PackSize = int (*)(const char* identifier, const char* transa, const char* transb, const int64_t* M,
                         const int64_t* N, const int64_t* K, const int64_t* lda, const int64_t* ldb, std::size_t* size,
                         bool* pack);
using PackS8 = int (*)(const char* identifier, const char* transa, const char* transb, const int64_t* M,
                       const int64_t* N, const int64_t* K, const int64_t* lda, const int64_t* ldb, const void* src,
                       void* dst);
using PackF32 = int (*)(const char* identifier, const char* transa, const char* transb, const int64_t* M,
                        const int64_t* N, const int64_t* K, const int64_t* lda, const int64_t* ldb, const float* src,
                        float* dst);
using ComputeF32 = int (*)(const char* transa, const char* transb, const int64_t* M, const int64_t* N, const int64_t* K,
                           const float* A, const int64_t* lda, const float* B, const int64_t* ldb, const float* beta,
                           float* C, const int64_t* ldc);
using ComputeS8U8 = int (*)(const char* transa, const char* transb, const char* offsetc, const int64_t* M,
                            const int64_t* N, const int64_t* K, const int8_t* A, const int64_t* lda, const uint8_t* B,
                            const int64_t* ldb, const float* beta, int32_t* C, const int64_t* ldc, const int32_t* co);
using SetOmpThreads = void (*)(int);
using GetOmpThreads = int (*)();

struct PackedGemm {  // all six or none
  PackSize packSizeS8 = nullptr;
  PackS8 packS8 = nullptr;
  ComputeS8U8 computeS8U8 = nullptr;
  PackSize packSizeF32 = nullptr;
  PackF32 packF32 = nullptr;
  ComputeF32 computeF32 = nullptr;
};

struct Functions {
  Sgemm sgemm = nullptr;
  GemmU8S8S32 gemmU8S8S32 = nullptr;
  PackedGemm packed;
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
    if (!f.sgemm || !f.gemmU8S8S32 || !f.setThreads || !f.getThreads) return Functions{};  // all or nothing
    auto& p = f.packed;
    p.packSizeS8 = reinterpret_cast<PackSize>(
        symbol("_ZN4dnnl4impl3cpu26gemm_s8u8s32_pack_get_sizeEPKcS3_S3_PKlS5_S5_S5_S5_PmPb", nullptr));
    p.packS8 = reinterpret_cast<PackS8>(symbol("_ZN4dnnl4impl3cpu17gemm_s8u8s32_packEPKcS3_S3_PKlS5_S5_S5_S5_PKvPv", nullptr));
    p.computeS8U8 = reinterpret_cast<ComputeS8U8>(
        symbol("_ZN4dnnl4impl3cpu20gemm_s8u8s32_computeEPKcS3_S3_PKlS5_S5_PKaS5_PKhS5_PKfPiS5_PKi", nullptr));
    p.packSizeF32 = reinterpret_cast<PackSize>(
        symbol("_ZN4dnnl4impl3cpu19sgemm_pack_get_sizeEPKcS3_S3_PKlS5_S5_S5_S5_PmPb", nullptr));
    p.packF32 = reinterpret_cast<PackF32>(symbol("_ZN4dnnl4impl3cpu10sgemm_packEPKcS3_S3_PKlS5_S5_S5_S5_PKfPf", nullptr));
    p.computeF32 = reinterpret_cast<ComputeF32>(
        symbol("_ZN4dnnl4impl3cpu13sgemm_computeEPKcS3_PKlS5_S5_PKfS5_S7_S5_S7_PfS5_", nullptr));
    if (!p.packSizeS8 || !p.packS8 || !p.computeS8U8 || !p.packSizeF32 || !p.packF32 || !p.computeF32) p = PackedGemm{};
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

void sgemm(char transA, char transB, int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B,
           int64_t ldb, float beta, float* C, int64_t ldc, int threads) {
  const auto& f = functions();
  const OmpThreads scope(f, threads);
  check(f.sgemm(transA, transB, M, N, K, 1.0f, A, lda, B, ldb, beta, C, ldc), "sgemm");
}

void gemmU8S8(int64_t M, int64_t N, int64_t K, const uint8_t* A, const int8_t* W, const int32_t* columnOffsets,
              int32_t* C, int threads) {
  const auto& f = functions();
  const OmpThreads scope(f, threads);
  // offsetc 'R': co holds one value per column of C (oneDNN calls it a row offset: a row vector)
  check(f.gemmU8S8S32('N', 'T', 'R', M, N, K, 1.0f, A, K, 0, W, K, 0, 0.0f, C, N, columnOffsets), "gemm_u8s8s32");
}

bool packedAvailable() { return functions().packed.computeS8U8 != nullptr; }

namespace {

// oneDNN's size of W [N, K] packed, then W packed into a buffer of that size. oneDNN is column-major:
// C^T [N, M] = W [N, K] x A^T, W the first operand ("A"), read transposed ("T") from its rows.
template <class Element, class SizeOf, class Pack>
PackedMatrix packed(int64_t N, int64_t K, const Element* W, int64_t ldw, SizeOf sizeOf, Pack pack, const char* name) {
  if (!packedAvailable() || N <= 0 || K <= 0) return {};
  const OmpThreads scope(functions(), 1);
  // a decoder step's row count: oneDNN's blocking follows it (packed for 1 row, products were no faster)
  const int64_t rows = 64;
  std::size_t size = 0;
  bool pays = false;
  check(sizeOf("A", "T", "N", &N, &rows, &K, &ldw, &K, &size, &pays), name);
  if (!pays || size == 0) return {};
  void* bytes = std::aligned_alloc(64, (size + 63) / 64 * 64);
  if (!bytes) throw std::bad_alloc();
  PackedMatrix out{std::shared_ptr<void>(bytes, std::free), N, K};
  check(pack("A", "T", "N", &N, &rows, &K, &ldw, &K, W, static_cast<Element*>(bytes)), name);
  return out;
}

}  // namespace

PackedMatrix packS8(int64_t N, int64_t K, const int8_t* W) {
  const auto& p = functions().packed;
  return packed(N, K, W, K, p.packSizeS8, p.packS8, "gemm_s8u8s32_pack");
}

PackedMatrix packF32(int64_t N, int64_t K, const float* W, int64_t ldw) {
  const auto& p = functions().packed;
  return packed(N, K, W, ldw, p.packSizeF32, p.packF32, "sgemm_pack");
}

// What dnnl_gemm_u8s8s32 does inside, W packed ("P"); the offsets one per row of C^T ('C').
void gemmU8S8(int64_t M, const uint8_t* A, const PackedMatrix& W, const int32_t* columnOffsets, int32_t* C) {
  const auto& f = functions();
  const OmpThreads scope(f, 1);
  const float beta = 0.0f;
  check(f.packed.computeS8U8("P", "N", "C", &W.N, &M, &W.K, static_cast<const int8_t*>(W.bytes.get()), &W.K, A, &W.K, &beta,
                      C, &W.N, columnOffsets),
        "gemm_s8u8s32_compute");
}

void sgemm(int64_t M, const float* A, int64_t lda, const PackedMatrix& W, float beta, float* C, int64_t ldc) {
  const auto& f = functions();
  const OmpThreads scope(f, 1);
  const int64_t rowStride = ldc > 0 ? ldc : W.N;
  check(f.packed.computeF32("P", "N", &W.N, &M, &W.K, static_cast<const float*>(W.bytes.get()), &W.K, A, &lda, &beta, C,
                            &rowStride),
        "sgemm_compute");
}

}  // namespace nmt::onednn
