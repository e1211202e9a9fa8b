// SPDX-License-Identifier: Apache-2.0
// lt_matmul.hpp: a small RAII wrapper of cuBLASLt for the two GEMM forms nvfp4bench needs.
//
// All matrices use our row-major ("TN") convention: A[l][m][k], B[l][n][k] (K contiguous),
// D[l][m][n] = A . B^T. In cuBLAS column-major terms this is D^T (n x m, ld n) =
// op(B) (= T of the stored k x n matrix, ld k) times op(A) (= N of the stored k x m matrix, ld k):
// cuBLAS's "A" operand is our B and its "B" operand is our A.
//
// One LtMatmul owns a cuBLASLt handle and a 32 MiB workspace; it must be used from one stream at a
// time (the workspace is shared). Plans (descriptors + algorithm from the heuristic) are cached per
// (kind, m, n, k, l, output type, pointer alignment): call the prepare_* / *_supported functions
// outside a timed region, and the enqueueing calls then allocate nothing and never synchronise.
// Errors throw (throw_library_error) with the cuBLASLt status name.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>

#include "core/case_data.hpp"

namespace nvfp4 {

enum class LtOut { f16, f32 };  // D type; compute is always FP32

// True for compute capabilities where cuBLASLt has a native NVFP4 (VEC16_UE4M3) matmul: 10.x and
// 12.x. Only then is the (cheap, but not free) heuristic asked.
bool nvfp4_native_cc(int cc_major);
// Same, for the current device (cudaGetDevice).
bool nvfp4_native_cc_current_device();

class LtMatmul {
 public:
  LtMatmul();
  ~LtMatmul();
  LtMatmul(const LtMatmul&) = delete;
  LtMatmul& operator=(const LtMatmul&) = delete;

  // FP16 x FP16 -> D (FP16 or FP32), FP32 compute, strided-batched over l (batch strides m*k,
  // n*k, m*n elements). Resolves the algorithm on first use for this (shape, type, alignment).
  void fp16_tn(const __half* a, const __half* b, void* d, LtOut out, int64_t m, int64_t n, int64_t k,
               int64_t l, cudaStream_t s);
  // Resolves and caches the algorithm only (no work enqueued). Throws when cuBLASLt has none.
  void prepare_fp16_tn(const __half* a, const __half* b, const void* d, LtOut out, int64_t m, int64_t n,
                       int64_t k, int64_t l);

  // Native block-scaled NVFP4: a and b hold packed e2m1 data and BLOCKED e4m3 scales
  // (Fp4Matrix::sf_blocked); the first m rows of a and n rows of b are used (batch strides stay
  // a.rows / b.rows rows), k = a.k, l = a.l. D[l][m][n] contiguous. One cuBLASLt call per batch.
  // Returns false when cuBLASLt reports no algorithm (NOT_SUPPORTED or zero results), e.g. sm_90;
  // true means the plan is cached and nvfp4_tn will use it.
  bool nvfp4_native_supported(const Fp4Matrix& a, const Fp4Matrix& b, const void* d, LtOut out, int64_t m,
                              int64_t n);
  // Throws when unsupported (call nvfp4_native_supported first).
  void nvfp4_tn(const Fp4Matrix& a, const Fp4Matrix& b, void* d, LtOut out, int64_t m, int64_t n, cudaStream_t s);

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace nvfp4
