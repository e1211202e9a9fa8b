// SPDX-License-Identifier: Apache-2.0
// dual_gemm / naive
//
// Contract
//   Computes C[l][m][n] = fp16( silu(X1) * X2 ), X1 = A.B1^T, X2 = A.B2^T (block-scaled NVFP4,
//   FP32), silu(x) = x / (1 + exp(-x)); silu and the product in FP32, one rounding to FP16.
//   Inputs (case_data.hpp): A [L][M][K/2], B1 = b, B2 = b2 [L][N][K/2] packed e2m1 (low nibble =
//   lower k); ROW-MAJOR e4m3 scales a.sf [L][M][K/16], b.sf / b2.sf [L][N][K/16]; C [L][M][N]
//   FP16 row-major. The blocked scale tensors are not used.
//   Method: one thread per output element, two FP32 accumulators, no tiling, no shared memory:
//   the correctness baseline. Decoding through nvfp4.hpp (e2m1_to_float, e4m3_to_float). Each
//   16-element block's sum of e2m1 products is exact in FP32; it is multiplied by sfa*sfb and
//   added to its accumulator.
//   Constraints: K % 16 == 0 (the problem rule is K % 256); any M, N, L; CC >= 7.0.
//   Timed region: the single kernel launch; nothing is done in prepare.
//   Run just this variant: nvfp4bench --problem dual_gemm --shape 256x512x1024 --variant naive
#include "../common/naive.cuh"
#include "reference/dequant.cuh"
#include "core/variant.hpp"

namespace nvfp4 {

namespace {

// What dual_gemm adds to the shared naive body: both dot products over one pass of A, then
// silu(x1) * x2 in FP32 (the reference's silu_mul).
struct SiluMul {
  __device__ __forceinline__ static float value(const naive::Args& p, naive::Row a, int64_t b_row) {
    float x1, x2;
    naive::dual_row_dot(a, naive::row_at(p.b, p.sfb, b_row, p.k), naive::row_at(p.b2, p.sfb2, b_row, p.k), p.k, x1,
                        x2);
    return silu_mul(x1, x2);
  }
};

}  // namespace

// ---- registry ----

extern const VariantInfo dual_gemm_naive;
const VariantInfo dual_gemm_naive{
    Problem::dual_gemm,
    "naive",
    "one thread per output, two FP32 accumulators, silu(x1)*x2 in FP32, row-major scales",
    "",
    &needs_sm70,
    &naive::prepare<SiluMul>,
};

}  // namespace nvfp4
