// SPDX-License-Identifier: Apache-2.0
// dual_gemm / vectorized
//
// Contract
//   C[l][m][n] = fp16( silu(x1) * x2 ), x1 = A.B1^T and x2 = A.B2^T summed in FP32, silu and the
//   product in FP32, one rounding; any M, N, L and K % 256 == 0; any e2m1 codes and finite e4m3
//   scales; row-major scales. Runs on CC 7.0 and newer.
// Method (kernels/common/gemm_simt.cuh)
//   CUDA cores only. CTA tile 64 rows of B1 + the same 64 rows of B2 (each thread holds x1 and x2
//   of its outputs) x 128 tokens x K step 32: A is decoded once per CTA for both. Every thread
//   loads one row's 16 packed bytes and 2 scales a step ahead into registers, decodes them to exact
//   FP32 into a double-buffered [k][row] shared-memory tile, and runs an 8 x 8 register-blocked FFMA
//   outer product (four LDS.128 per 64 FFMA). Split-K (a cluster per tile, reduced
//   through distributed shared memory) fills the GPU.
//   Timed region: the single launch. prepare only plans it (split count).
//   Run just this variant: nvfp4bench --problem dual_gemm --shape 256x4096x7168 --variant vectorized
#include "../common/gemm_simt.cuh"

namespace nvfp4 {

namespace {

std::unique_ptr<Runner> prepare(const CaseView& c, cudaStream_t stream) {
  return std::make_unique<gemm::simt::SimtRunner<2, false>>(c, stream);
}

}  // namespace

extern const VariantInfo dual_gemm_vectorized;
const VariantInfo dual_gemm_vectorized{
    Problem::dual_gemm,
    "vectorized",
    "CUDA cores, B1 and B2 tiles against one decoded A tile: 16-byte packed loads a step ahead, exact FP32 decode into shared memory, 8x8 register-blocked "
    "FFMA, split-K",
    "",
    &gemm::simt::unsupported,
    &prepare,
};

}  // namespace nvfp4
