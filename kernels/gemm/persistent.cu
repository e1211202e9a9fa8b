// SPDX-License-Identifier: Apache-2.0
// gemm / persistent
//
// Contract
//   C[l][m][n] = fp16( sum_k A[l][m][k]*SFA * B[l][n][k]*SFB ) for any M, N, L and K % 64 == 0;
//   any e2m1 codes and finite e4m3 scales. Reads A with its row-major scales and B with its
//   BLOCKED (gpu-mode permuted) scales. Hopper only (sm_90a: wgmma, TMA); SKIP elsewhere.
// Method (kernels/common/gemm_wgmma.cuh)
//   wgmma FP16 -> FP32 with A from registers: the weights (B) on wgmma's M side, decoded in
//   registers by 2 or 3 consumer warpgroups (64 rows each), and the tokens on its N side as a
//   shared-memory operand (128 per CTA; 256 when M > 128 and the cost model prefers it). A timed
//   pre-pass decodes A once to exact FP16; a producer warpgroup streams token tiles, packed B and
//   its blocked scale atoms by TMA into an mbarrier ring. Persistent grid over the output tiles;
//   split-K through distributed shared memory when they do not fill the GPU in one wave (or, with 3
//   or more ranks of 2 x 128, through an FP32 workspace in L2, without clusters). The CTA
//   shape is picked per case (the result's `plan` says which; NVFP4_PERSISTENT_CTA=2x128|3x128|
//   2x256 forces one).
//   Timed region: both launches (token decode, main loop). prepare allocates the token workspace
//   and builds the TMA descriptors.
//   Run just this variant: nvfp4bench --problem gemm --shape 128x7168x16384 --variant persistent
#include "../common/gemm_wgmma.cuh"

namespace nvfp4 {

namespace {

std::unique_ptr<Runner> prepare(const CaseView& c, cudaStream_t stream) {
  return std::make_unique<gemm::wg::WgmmaRunner<1>>(c, stream);
}

}  // namespace

extern const VariantInfo gemm_persistent;
const VariantInfo gemm_persistent{
    Problem::gemm,
    "persistent",
    "wgmma FP16->FP32 (A = weights decoded in registers, B = tokens in shared memory), TMA + mbarrier ring, "
    "producer + 2-3 consumer warpgroups, CTA shape per case, persistent grid, split-K over clusters or stream-K; A decoded once "
    "by a timed pre-pass",
    "",
    &gemm::wg::unsupported,
    &prepare,
};

}  // namespace nvfp4
