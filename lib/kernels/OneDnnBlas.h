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

// C[M, N] = op(A) op(B) + beta C, each operand read as stored ('N': A [M, K], B [K, N]) or transposed ('T': A
// stored [K, M], B [N, K]); lda, ldb, ldc: the distance between stored rows.
void sgemm(char transA, char transB, int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* B,
           int64_t ldb, float beta, float* C, int64_t ldc, int threads);

// C[M, N] = A[M, K] W^T + columnOffsets (one int32 per column n of C), u8 x s8 -> s32; A and W dense.
void gemmU8S8(int64_t M, int64_t N, int64_t K, const uint8_t* A, const int8_t* W, const int32_t* columnOffsets,
              int32_t* C, int threads);

// W [N, K] in the layout oneDNN's kernels read, for products on one thread. sgemm and gemmU8S8 above
// pack W at every call: a third of an int8 decoder step's product time, and for the few rows of a
// step's float32 products a third or more too. oneDNN's packed GEMM (sgemm_pack, gemm_s8u8s32_pack and
// their _compute) is exported but not in dnnl.h: it is looked up by its C++ names, so a library whose
// signatures differ has none (packedAvailable() false). One thread only: oneDNN splits a packed product
// among threads as it planned for the row count given at packing, and on 2 threads left the rows past
// that count uncomputed.
struct PackedMatrix {
  std::shared_ptr<void> bytes;  // 64-byte aligned; null: not packed
  int64_t N = 0, K = 0;
};
bool packedAvailable();
// Empty (no bytes) where !packedAvailable() or oneDNN would read W as it is. ldw: the distance between rows.
PackedMatrix packS8(int64_t N, int64_t K, const int8_t* W);
PackedMatrix packF32(int64_t N, int64_t K, const float* W, int64_t ldw);
// gemmU8S8 on one thread with W packed: the same sums, any M.
void gemmU8S8(int64_t M, const uint8_t* A, const PackedMatrix& W, const int32_t* columnOffsets, int32_t* C);
// sgemm on one thread with W packed. Not always the same floats as unpacked: unpacked, oneDNN picks
// other kernels for some row counts (a vector product for one row; with AVX-512 its small-n kernels up
// to 15 rows, with AVX2 others for 128), which add in another order.
// ldc: the distance between C's rows (0: W.N, C's rows whole).
void sgemm(int64_t M, const float* A, int64_t lda, const PackedMatrix& W, float beta, float* C, int64_t ldc = 0);

}  // namespace nmt::onednn
