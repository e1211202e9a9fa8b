// SPDX-License-Identifier: Apache-2.0
// dual_gemm / persistent
//
// Contract
//   C[l][m][n] = fp16( silu(x1) * x2 ), x1 = A.B1^T and x2 = A.B2^T summed in FP32, silu and the
//   product in FP32, one rounding; any M, N, L and K % 64 == 0; any e2m1 codes and finite e4m3
//   scales. Reads A with its row-major scales, B1 and B2 with their BLOCKED (gpu-mode) scales.
//   Hopper only (sm_90a: wgmma, TMA); SKIP elsewhere.
// Method (kernels/common/gemm_wgmma.cuh)
//   As gemm / persistent, with each token tile feeding both B1 and B2: a CTA's wgmma rows
//   alternate in runs of 8 between B1 and B2 rows of the same output columns, so every consumer
//   thread holds x1 and x2 of its outputs in one accumulator set (rows g and g + 8) and the
//   epilogue computes silu(x1)*x2 in FP32 with one rounding. Per K step the producer loads one
//   token tile, the tile's packed rows of B1 and of B2, and their blocked scale atoms.
//   Timed region: both launches (token decode, main loop). prepare allocates the token workspace
//   and builds the TMA descriptors.
//   Run just this variant: nvfp4bench --problem dual_gemm --shape 256x4096x7168 --variant persistent
#include "../common/gemm_wgmma.cuh"

namespace nvfp4 {

namespace {

std::unique_ptr<Runner> prepare(const CaseView& c, cudaStream_t stream) {
  return std::make_unique<gemm::wg::WgmmaRunner<2>>(c, stream);
}

}  // namespace

extern const VariantInfo dual_gemm_persistent;
const VariantInfo dual_gemm_persistent{
    Problem::dual_gemm,
    "persistent",
    "wgmma FP16->FP32 (A = B1/B2 rows decoded in registers, interleaved by 8 so x1 and x2 share a thread; B = tokens "
    "in shared memory), TMA + mbarrier ring, producer + 2-3 consumer warpgroups, CTA shape per case, persistent "
    "grid, split-K over clusters or stream-K",
    "",
    &gemm::wg::unsupported,
    &prepare,
};

}  // namespace nvfp4
