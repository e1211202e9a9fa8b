// SPDX-License-Identifier: Apache-2.0
// group_gemm / tensor-core
//
// Contract
//   For every group g: C_g[m][n] = fp16( sum_k A_g[m][k]*SFA_g * B_g[n][k]*SFB_g ) with the group's
//   own M_g, N_g and K_g % 64 == 0 (L = 1); any e2m1 codes and finite e4m3 scales. Reads A_g with
//   its row-major scales and B_g with its BLOCKED (gpu-mode) scales.
// Method (kernels/common/gemm_mma.cuh, the gemm tensor-core main loop)
//   prepare uploads a table of the groups (pointers, sizes, first tile, token workspace offset).
//   run: one token pre-pass over all groups (A_g to exact FP16 in fragment order, rows padded to
//   128), then ONE main-loop launch whose GroupScheduler walks every group's 128 x 128 tiles:
//   mma.sync FP16 -> FP32, weights on the MMA M side, packed B_g decoded in registers. Rows and
//   columns past a group's M_g / N_g are read from row M_g-1 / N_g-1 and never stored. Split-K
//   (one cluster per tile) when all groups' tiles leave SMs idle.
//   Timed region: both launches. Untimed: the table upload and the workspace allocation.
//   Run just this variant: nvfp4bench --problem group_gemm --shape 80x4096x7168,176x4096x7168 --variant tensor-core
#include "../common/gemm_mma.cuh"

namespace nvfp4 {

namespace {

std::unique_ptr<Runner> prepare(const CaseView& c, cudaStream_t stream) {
  return std::make_unique<gemm::mma::MmaRunner<1, true>>(c, stream);
}

}  // namespace

extern const VariantInfo group_gemm_tensor_core;
const VariantInfo group_gemm_tensor_core{
    Problem::group_gemm,
    "tensor-core",
    "one launch for all groups: the gemm mma.sync main loop driven by a grouped tile scheduler (or stream-K over all "
    "groups' K steps), one token pre-pass",
    "",
    &gemm::mma::unsupported,
    &prepare,
};

}  // namespace nvfp4
