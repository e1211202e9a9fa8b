// SPDX-License-Identifier: Apache-2.0
// dual_gemm / cublaslt
//
// Contract
//   The vendor baseline. Computes C[l][m][n] = fp16( silu(X1) * X2 ), X1 = A.B1^T, X2 = A.B2^T
//   (block-scaled NVFP4, FP32 outputs), silu(x) = x / (1 + exp(-x)), silu and product in FP32,
//   one rounding (silu_mul_fp16, dequant.cu). Inputs (case_data.hpp): A [L][M][K/2], B1 = b,
//   B2 = b2 [L][N][K/2] packed e2m1, e4m3 scales; C [L][M][N] FP16 row-major.
//   - CC 10.x/12.x where cuBLASLt reports support: two native NVFP4 matmuls (CUDA_R_4F_E2M1,
//     VEC16_UE4M3, BLOCKED scales) with FP32 outputs into scratch, then silu_mul_fp16 into C; all
//     timed.
//   - Elsewhere (sm_90): prepare() dequantizes A, B1, B2 exactly to FP16 (untimed); run() is two
//     strided-batched cuBLASLt FP16 GEMMs (FP32 compute, FP32 outputs into scratch) and
//     silu_mul_fp16 into C.
//   Algorithms come from the cuBLASLt heuristic in prepare(); run() allocates nothing and never
//   synchronises.
//   Constraints: whatever cuBLASLt accepts; memory for 2 FP32 M x N x L scratch tensors (and the
//   FP16 copies of A, B1, B2 on the dequant path).
//   Run just this variant: nvfp4bench --problem dual_gemm --shape 256x512x1024 --variant cublaslt
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
// (none of our own: cuBLASLt, dequantize_fp16 in prepare and silu_mul_fp16 from dequant.cu)

// ---- launch ----

class LtRunner final : public Runner {
 public:
  LtRunner(const GemmOperands& g, cudaStream_t stream) : m_g(g) {
    const Dims& d = g.dims;
    const size_t mn = static_cast<size_t>(d.l * d.m * d.n);
    m_x1 = DeviceBuffer(mn * sizeof(float));
    m_x2 = DeviceBuffer(mn * sizeof(float));
    m_native = nvfp4_native_cc_current_device() &&
               m_lt.nvfp4_native_supported(g.a, g.b, m_x1.get(), LtOut::f32, d.m, d.n) &&
               m_lt.nvfp4_native_supported(g.a, g.b2, m_x2.get(), LtOut::f32, d.m, d.n);
    if (m_native) return;
    m_a16 = dequantized_fp16(g.a, d.m, stream);
    m_b1_16 = dequantized_fp16(g.b, d.n, stream);
    m_b2_16 = dequantized_fp16(g.b2, d.n, stream);
    m_lt.prepare_fp16_tn(m_a16.get<__half>(), m_b1_16.get<__half>(), m_x1.get(), LtOut::f32, d.m, d.n, d.k, d.l);
    m_lt.prepare_fp16_tn(m_a16.get<__half>(), m_b2_16.get<__half>(), m_x2.get(), LtOut::f32, d.m, d.n, d.k, d.l);
  }

  void run(cudaStream_t stream) override {
    const Dims& d = m_g.dims;
    if (m_native) {
      m_lt.nvfp4_tn(m_g.a, m_g.b, m_x1.get(), LtOut::f32, d.m, d.n, stream);
      m_lt.nvfp4_tn(m_g.a, m_g.b2, m_x2.get(), LtOut::f32, d.m, d.n, stream);
    } else {
      m_lt.fp16_tn(m_a16.get<__half>(), m_b1_16.get<__half>(), m_x1.get(), LtOut::f32, d.m, d.n, d.k, d.l, stream);
      m_lt.fp16_tn(m_a16.get<__half>(), m_b2_16.get<__half>(), m_x2.get(), LtOut::f32, d.m, d.n, d.k, d.l, stream);
    }
    silu_mul_fp16(m_x1.get<float>(), m_x2.get<float>(), m_g.c, d.l * d.m * d.n, stream);
  }

 private:
  GemmOperands m_g;
  LtMatmul m_lt;
  bool m_native = false;
  DeviceBuffer m_x1, m_x2;             // FP32 [L][M][N]: A.B1^T and A.B2^T
  DeviceBuffer m_a16, m_b1_16, m_b2_16;  // dequant path only
};

std::unique_ptr<Runner> prepare(const CaseView& c, cudaStream_t stream) {
  return std::make_unique<LtRunner>(c.groups.at(0), stream);
}

}  // namespace

// ---- registry ----

extern const VariantInfo dual_gemm_cublaslt;
const VariantInfo dual_gemm_cublaslt{
    Problem::dual_gemm,
    "cublaslt",
    "vendor baseline: two cuBLASLt GEMMs (native NVFP4 on CC 10.x/12.x, else FP16 on dequantized "
    "operands) with FP32 outputs, then a silu(x1)*x2 kernel",
    "without native NVFP4 (sm_90): operands dequantized to FP16 in prepare, outside the timed region; "
    "timed: two cuBLASLt FP16 GEMMs (FP32 compute, FP32 outputs) and the silu-multiply kernel",
    &needs_sm70,
    &prepare,
};

}  // namespace nvfp4
