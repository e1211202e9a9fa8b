// SPDX-License-Identifier: Apache-2.0
// group_gemm / vectorized
//
// Contract
//   For every group g: C_g[m][n] = fp16( sum_k A_g[m][k]*SFA_g * B_g[n][k]*SFB_g ) with the group's
//   own M_g, N_g and K_g % 256 == 0 (L = 1); any e2m1 codes and finite e4m3 scales; row-major
//   scales. Runs on CC 7.0 and newer.
// Method (kernels/common/gemm_simt.cuh, the gemm vectorized main loop)
//   prepare uploads a table of the groups (pointers, sizes, first tile); run is ONE launch whose
//   GroupScheduler walks every group's 128 x 128 tiles on CUDA cores (exact FP32 decode into
//   shared memory, 8 x 8 register-blocked FFMA). Rows and columns past a group's M_g / N_g are
//   read from row M_g-1 / N_g-1 and never stored. Split-K (one cluster per tile) when all groups'
//   tiles leave SMs idle.
//   Timed region: the single launch. Untimed: the table upload.
//   Run just this variant: nvfp4bench --problem group_gemm --shape 80x4096x7168,176x4096x7168 --variant vectorized
#include "../common/gemm_simt.cuh"

namespace nvfp4 {

namespace {

std::unique_ptr<Runner> prepare(const CaseView& c, cudaStream_t stream) {
  return std::make_unique<gemm::simt::SimtRunner<1, true>>(c, stream);
}

}  // namespace

extern const VariantInfo group_gemm_vectorized;
const VariantInfo group_gemm_vectorized{
    Problem::group_gemm,
    "vectorized",
    "one launch for all groups: the gemm CUDA-core main loop driven by a grouped tile scheduler",
    "",
    &gemm::simt::unsupported,
    &prepare,
};

}  // namespace nvfp4
