// SPDX-License-Identifier: Apache-2.0
// gemm / vectorized
//
// Contract
//   C[l][m][n] = fp16( sum_k A[l][m][k]*SFA * B[l][n][k]*SFB ) for any M, N, L and K % 256 == 0;
//   any e2m1 codes and finite e4m3 scales; row-major scales. Runs on CC 7.0 and newer.
// Method (kernels/common/gemm_simt.cuh)
//   CUDA cores only. CTA tile 128 weights x 128 tokens x K step 32; every thread loads one row's
//   16 packed bytes and 2 scales a step ahead into registers, decodes them to exact FP32 into a
//   double-buffered [k][row] shared-memory tile, and runs an 8 x 8 register-blocked FFMA outer
//   product (four LDS.128 per 64 FFMA). Split-K (a cluster per tile, reduced
//   through distributed shared memory) fills the GPU.
//   Timed region: the single launch. prepare only plans it (split count).
//   Run just this variant: nvfp4bench --problem gemm --shape 128x7168x16384 --variant vectorized
#include "../common/gemm_simt.cuh"

namespace nvfp4 {

namespace {

std::unique_ptr<Runner> prepare(const CaseView& c, cudaStream_t stream) {
  return std::make_unique<gemm::simt::SimtRunner<1, false>>(c, stream);
}

}  // namespace

extern const VariantInfo gemm_vectorized;
const VariantInfo gemm_vectorized{
    Problem::gemm,
    "vectorized",
    "CUDA cores: 16-byte packed loads a step ahead, exact FP32 decode into shared memory, 8x8 register-blocked "
    "FFMA, split-K",
    "",
    &gemm::simt::unsupported,
    &prepare,
};

}  // namespace nvfp4
