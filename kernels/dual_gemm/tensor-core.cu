// SPDX-License-Identifier: Apache-2.0
// dual_gemm / tensor-core
//
// Contract
//   C[l][m][n] = fp16( silu(x1) * x2 ), x1 = A.B1^T and x2 = A.B2^T summed in FP32, silu and the
//   product in FP32, one rounding; any M, N, L and K % 64 == 0; any e2m1 codes and finite e4m3
//   scales. Reads A with its row-major scales, B1 and B2 with their BLOCKED (gpu-mode) scales.
// Method (kernels/common/gemm_mma.cuh)
//   mma.sync m16n8k16 FP16 -> FP32 with the weights on the MMA's M side and the tokens (A) on its
//   N side. A timed pre-pass decodes A once to exact FP16; the main loop streams packed B1/B2 and
//   their scales through a cp.async ring and decodes them in registers straight into A fragments
//   (shift trick + HMUL2). Each token tile feeds both B1 and B2: a CTA holds 64 rows of B1 and the
//   same 64 rows of B2 (4 warps, 2 CTAs per SM; or 128 + 128 in 8 warps, one per SM, sharing each
//   token tile: the plan says "of 8 warps"; a lane has x1 and x2 of one output in its two m16
//   tiles) x 128 tokens, K step 64; split-K when the output tiles do not fill the GPU (the splits
//   of a tile form a cluster and reduce through distributed shared memory).
//   Timed region: both launches (token decode, main loop). prepare allocates the token workspace.
//   Run just this variant: nvfp4bench --problem dual_gemm --shape 256x4096x7168 --variant tensor-core
#include "../common/gemm_mma.cuh"

namespace nvfp4 {

namespace {

std::unique_ptr<Runner> prepare(const CaseView& c, cudaStream_t stream) {
  return std::make_unique<gemm::mma::MmaRunner<2, false>>(c, stream);
}

}  // namespace

extern const VariantInfo dual_gemm_tensor_core;
const VariantInfo dual_gemm_tensor_core{
    Problem::dual_gemm,
    "tensor-core",
    "mma.sync FP16->FP32, B1 and B2 rows of the same outputs in one warp, two accumulators, weights on the MMA M side, packed B through a cp.async ring decoded into fragments, "
    "A decoded once by a timed pre-pass, split-K over clusters or stream-K",
    "",
    &gemm::mma::unsupported,
    &prepare,
};

}  // namespace nvfp4
