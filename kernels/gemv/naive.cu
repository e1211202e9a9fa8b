// SPDX-License-Identifier: Apache-2.0
// gemv / naive
//
// Contract
//   Computes c[l][m][0] = fp16( sum_k A[l][m][k]*SFA[l][m][k/16] * B[l][0][k]*SFB[l][0][k/16] ).
//   Inputs (case_data.hpp): A [L][M][K/2] packed e2m1 (low nibble = lower k); B stored with 128
//   rows per batch as in gpu-mode, [L][128][K/2], of which only row 0 is the vector (batch stride
//   128 rows); ROW-MAJOR e4m3 scales a.sf [L][M][K/16], b.sf [L][128][K/16]; c [L][M][1] FP16.
//   The blocked scale tensors are not used.
//   Method: one thread per output row, no tiling, no shared memory: the correctness baseline.
//   Decoding through nvfp4.hpp (e2m1_to_float, e4m3_to_float). Each 16-element block's sum of
//   e2m1 products is exact in FP32; it is multiplied by sfa*sfb and added to an FP32 accumulator;
//   one rounding to FP16 (__float2half_rn).
//   Constraints: K % 16 == 0 (the problem rule is K % 64); any M, L; CC >= 7.0.
//   Timed region: the single kernel launch; nothing is done in prepare.
//   Run just this variant: nvfp4bench --problem gemv --shape 256x1024x2 --variant naive
#include "../common/naive.cuh"
#include "core/variant.hpp"

namespace nvfp4 {

// ---- registry: the indexing, kernel and launch are naive.cuh's ----

extern const VariantInfo gemv_naive;
const VariantInfo gemv_naive{
    Problem::gemv,
    "naive",
    "one thread per output row, FP32 accumulation per 16-element block, row-major scales",
    "",
    &needs_sm70,
    &naive::prepare<naive::Dot>,
};

}  // namespace nvfp4
