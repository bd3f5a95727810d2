#pragma once

#include <cstdint>
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

}  // namespace nmt::onednn
