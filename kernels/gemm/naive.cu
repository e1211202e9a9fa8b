// SPDX-License-Identifier: Apache-2.0
// gemm / naive
//
// Contract
//   Computes C[l][m][n] = fp16( sum_k A[l][m][k]*SFA[l][m][k/16] * B[l][n][k]*SFB[l][n][k/16] ).
//   Inputs (case_data.hpp): A [L][M][K/2], B [L][N][K/2] packed e2m1 (low nibble = lower k);
//   ROW-MAJOR e4m3 scales a.sf [L][M][K/16], b.sf [L][N][K/16]; C [L][M][N] FP16 row-major.
//   The blocked scale tensors are not used.
//   Method: one thread per output element, no tiling, no shared memory: the correctness baseline.
//   Decoding through nvfp4.hpp (e2m1_to_float, e4m3_to_float). Each 16-element block's sum of
//   e2m1 products is exact in FP32; it is multiplied by sfa*sfb and added to an FP32 accumulator;
//   one rounding to FP16 (__float2half_rn).
//   Constraints: K % 16 == 0 (the problem rule is K % 256); any M, N, L; CC >= 7.0.
//   Timed region: the single kernel launch; nothing is done in prepare.
//   Run just this variant: nvfp4bench --problem gemm --shape 256x512x1024 --variant naive
#include "../common/naive.cuh"
#include "core/variant.hpp"

namespace nvfp4 {

// ---- registry: the indexing, kernel and launch are naive.cuh's ----

extern const VariantInfo gemm_naive;
const VariantInfo gemm_naive{
    Problem::gemm,
    "naive",
    "one thread per output, FP32 accumulation per 16-element block, row-major scales",
    "",
    &needs_sm70,
    &naive::prepare<naive::Dot>,
};

}  // namespace nvfp4
