#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace nmt::onednn {

// oneDNN's BLAS functions (dnnl.h: dnnl_sgemm and dnnl_gemm_u8s8s32, the same in oneDNN 2 and 3),
// looked up at run time in the oneDNN library LibTorch loaded: nmt needs no oneDNN headers, and
// builds and runs where LibTorch has none or hides it (then available() is false). Its kernels
// follow the CPU itself (AVX-512 and VNNI where there are), whatever OPENBLAS_CORETYPE says.
// Row-major operands; W is [N, K] (op(B) = W^T). Each call runs on `threads` OpenMP threads and
// puts the calling thread's OpenMP count back, so LibTorch's own loops keep theirs.

bool available();
// The library the functions came from ("libdnnl.so.2"); empty when not available().
std::string library();

// C[M, N] = A[M, K] W^T + beta C; lda, ldw: the distance between rows.
void sgemm(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* W, int64_t ldw, float beta,
           float* C, int threads);

// C[M, N] = A[M, K] W^T + columnOffsets (one int32 per column n of C), u8 x s8 -> s32; A and W dense.
void gemmU8S8(int64_t M, int64_t N, int64_t K, const uint8_t* A, const int8_t* W, const int32_t* columnOffsets,
              int32_t* C, int threads);

// W [N, K] s8 in the layout oneDNN's int8 kernels read, for products on one thread. gemmU8S8 packs W at
// every call: a third of an int8 decoder step's product time. oneDNN's packed GEMM (gemm_s8u8s32_pack
// and _compute) is exported but not in dnnl.h: it is looked up by its C++ names, so a library whose
// signatures differ has none (packedAvailable() false). One thread only: oneDNN splits a packed product
// among threads as it planned for the row count given at packing, and on 2 threads left the rows past
// that count uncomputed.
struct PackedS8 {
  std::shared_ptr<void> bytes;  // 64-byte aligned
  int64_t N = 0, K = 0;
};
bool packedAvailable();
// Empty (no bytes) where !packedAvailable() or oneDNN would read W as it is.
PackedS8 packS8(int64_t N, int64_t K, const int8_t* W);
// gemmU8S8 on one thread with W packed: the same sums, any M.
void gemmU8S8(int64_t M, const uint8_t* A, const PackedS8& W, const int32_t* columnOffsets, int32_t* C);

}  // namespace nmt::onednn
