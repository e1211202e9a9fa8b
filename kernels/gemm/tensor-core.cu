// SPDX-License-Identifier: Apache-2.0
// gemm / tensor-core
//
// Contract
//   C[l][m][n] = fp16( sum_k A[l][m][k]*SFA * B[l][n][k]*SFB ) for any M, N, L and K % 64 == 0;
//   any e2m1 codes and finite e4m3 scales. Reads A with its row-major scales and B with its
//   BLOCKED (gpu-mode permuted) scales.
// Method (kernels/common/gemm_mma.cuh)
//   mma.sync m16n8k16 FP16 -> FP32 with the weights (B) on the MMA's M side and the tokens (A) on
//   its N side. A timed pre-pass decodes A once to exact FP16; the main loop streams packed B and
//   its scales through a cp.async ring and decodes them in registers straight into A fragments
//   (shift trick + HMUL2). CTA tile 128 weights x 128 tokens (4 warps, 2 CTAs per SM) or 256 x 128
//   (8 warps, one per SM, sharing each token tile; the plan says "of 8 warps"), or 128 x 128 on 8 warps
//   that split each K step in two halves (the plan says "in K halves", P161), K step 64; split-K when the
//   output tiles do not fill the GPU (the splits of a tile form a cluster and reduce through
//   distributed shared memory).
//   Timed region: both launches (token decode, main loop). prepare allocates the token workspace.
//   Run just this variant: nvfp4bench --problem gemm --shape 128x7168x16384 --variant tensor-core
#include "../common/gemm_mma.cuh"

namespace nvfp4 {

namespace {

std::unique_ptr<Runner> prepare(const CaseView& c, cudaStream_t stream) {
  return std::make_unique<gemm::mma::MmaRunner<1, false>>(c, stream);
}

}  // namespace

extern const VariantInfo gemm_tensor_core;
const VariantInfo gemm_tensor_core{
    Problem::gemm,
    "tensor-core",
    "mma.sync FP16->FP32, weights on the MMA M side, packed B through a cp.async ring decoded into fragments, "
    "A decoded once by a timed pre-pass, split-K over clusters or stream-K",
    "",
    &gemm::mma::unsupported,
    &prepare,
};

}  // namespace nvfp4
