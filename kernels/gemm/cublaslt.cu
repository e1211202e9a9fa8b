// SPDX-License-Identifier: Apache-2.0
// gemm / cublaslt
//
// Contract
//   The vendor baseline. Computes C[l][m][n] = fp16( A[l] . B[l]^T ) with block-scaled NVFP4
//   operands (case_data.hpp: A [L][M][K/2], B [L][N][K/2] packed e2m1; scales e4m3; C [L][M][N]
//   FP16 row-major).
//   - CC 10.x/12.x where cuBLASLt reports support: native NVFP4 matmul (CUDA_R_4F_E2M1,
//     VEC16_UE4M3) on the case's own packed data and BLOCKED scales, FP32 compute, FP16 output
//     written directly into C; one cuBLASLt call per batch. Nothing is outside the timed region.
//   - Elsewhere (sm_90): prepare() dequantizes A and B exactly to FP16 (untimed); run() is one
//     strided-batched cuBLASLt FP16 x FP16 GEMM, FP32 compute, FP16 output directly into C.
//   Algorithms come from the cuBLASLt heuristic in prepare(); run() allocates nothing and never
//   synchronises.
//   Constraints: whatever cuBLASLt accepts (K % 16 == 0 for the dequantisation); memory for the
//   FP16 copies of A and B on the dequant path.
//   Run just this variant: nvfp4bench --problem gemm --shape 256x512x1024 --variant cublaslt
#include <cuda_fp16.h>

#include "core/case_data.hpp"
#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/variant.hpp"
#include "reference/dequant.cuh"
#include "reference/lt_matmul.hpp"

namespace nvfp4 {

namespace {

// ---- kernel ----
// (none of our own: cuBLASLt, and dequantize_fp16 from dequant.cu in prepare)

// ---- launch ----

class LtRunner final : public Runner {
 public:
  LtRunner(const GemmOperands& g, cudaStream_t stream) : m_g(g) {
    const Dims& d = g.dims;
    m_native = nvfp4_native_cc_current_device() && m_lt.nvfp4_native_supported(g.a, g.b, g.c, LtOut::f16, d.m, d.n);
    if (m_native) return;
    m_a16 = dequantized_fp16(g.a, d.m, stream);
    m_b16 = dequantized_fp16(g.b, d.n, stream);
    m_lt.prepare_fp16_tn(m_a16.get<__half>(), m_b16.get<__half>(), g.c, LtOut::f16, d.m, d.n, d.k, d.l);
  }

  void run(cudaStream_t stream) override {
    const Dims& d = m_g.dims;
    if (m_native)
      m_lt.nvfp4_tn(m_g.a, m_g.b, m_g.c, LtOut::f16, d.m, d.n, stream);
    else
      m_lt.fp16_tn(m_a16.get<__half>(), m_b16.get<__half>(), m_g.c, LtOut::f16, d.m, d.n, d.k, d.l, stream);
  }

 private:
  GemmOperands m_g;
  LtMatmul m_lt;
  bool m_native = false;
  DeviceBuffer m_a16, m_b16;  // dequant path only
};

std::unique_ptr<Runner> prepare(const CaseView& c, cudaStream_t stream) {
  return std::make_unique<LtRunner>(c.groups.at(0), stream);
}

}  // namespace

// ---- registry ----

extern const VariantInfo gemm_cublaslt;
const VariantInfo gemm_cublaslt{
    Problem::gemm,
    "cublaslt",
    "vendor baseline: cuBLASLt native NVFP4 on CC 10.x/12.x, else FP16 GEMM on dequantized operands",
    "without native NVFP4 (sm_90): operands dequantized to FP16 in prepare, outside the timed region; "
    "timed: cuBLASLt FP16 GEMM, FP32 compute",
    &needs_sm70,
    &prepare,
};

}  // namespace nvfp4
