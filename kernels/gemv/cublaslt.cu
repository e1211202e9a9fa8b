// SPDX-License-Identifier: Apache-2.0
// gemv / cublaslt
//
// Contract
//   The vendor baseline. Computes c[l][m][0] = fp16( A[l] . b_l ) where b_l is row 0 of B's
//   128-row batch l (case_data.hpp: A [L][M][K/2], B [L][128][K/2] packed e2m1, scales e4m3,
//   c [L][M][1] FP16).
//   - CC 10.x/12.x where cuBLASLt reports support: native NVFP4 matmul (CUDA_R_4F_E2M1,
//     VEC16_UE4M3) on the case's packed data and BLOCKED scales, FP32 compute, FP16 output, one
//     call per batch. With N = 1 when cuBLASLt accepts it (output straight into c); otherwise with
//     all 128 stored rows of B, as gpu-mode's reference does, into a scratch [L][M][128] from
//     which column 0 is copied into c (cudaMemcpy2DAsync, timed).
//   - Elsewhere (sm_90): prepare() dequantizes A and row 0 of each B batch exactly to FP16
//     (untimed); run() is one strided-batched cuBLASLt FP16 GEMM with N = 1, FP32 compute, FP16
//     output directly into c.
//   Algorithms come from the cuBLASLt heuristic in prepare(); run() allocates nothing and never
//   synchronises.
//   Constraints: whatever cuBLASLt accepts; memory for the FP16 copy of A on the dequant path.
//   Run just this variant: nvfp4bench --problem gemv --shape 256x1024x2 --variant cublaslt
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
    if (nvfp4_native_cc_current_device()) {
      if (m_lt.nvfp4_native_supported(g.a, g.b, g.c, LtOut::f16, d.m, 1)) {
        m_path = Path::native_n1;
        return;
      }
      m_wide = DeviceBuffer(static_cast<size_t>(d.l * d.m * g.b.rows) * sizeof(__half));
      if (m_lt.nvfp4_native_supported(g.a, g.b, m_wide.get(), LtOut::f16, d.m, g.b.rows)) {
        m_path = Path::native_wide;
        return;
      }
      m_wide = DeviceBuffer();
    }
    m_path = Path::dequant;
    m_a16 = dequantized_fp16(g.a, d.m, stream);
    m_b16 = dequantized_fp16(g.b, 1, stream);  // row 0 of each 128-row batch
    m_lt.prepare_fp16_tn(m_a16.get<__half>(), m_b16.get<__half>(), g.c, LtOut::f16, d.m, 1, d.k, d.l);
  }

  void run(cudaStream_t stream) override {
    const Dims& d = m_g.dims;
    switch (m_path) {
      case Path::native_n1:
        m_lt.nvfp4_tn(m_g.a, m_g.b, m_g.c, LtOut::f16, d.m, 1, stream);
        break;
      case Path::native_wide: {
        const int64_t n = m_g.b.rows;
        m_lt.nvfp4_tn(m_g.a, m_g.b, m_wide.get(), LtOut::f16, d.m, n, stream);
        // Column 0 of [L*M][n] into the contiguous [L*M] output.
        CUDA_CHECK(cudaMemcpy2DAsync(m_g.c, sizeof(__half), m_wide.get(), static_cast<size_t>(n) * sizeof(__half),
                                     sizeof(__half), static_cast<size_t>(d.l * d.m), cudaMemcpyDeviceToDevice,
                                     stream));
        break;
      }
      case Path::dequant:
        m_lt.fp16_tn(m_a16.get<__half>(), m_b16.get<__half>(), m_g.c, LtOut::f16, d.m, 1, d.k, d.l, stream);
        break;
    }
  }

 private:
  enum class Path { native_n1, native_wide, dequant };
  GemmOperands m_g;
  LtMatmul m_lt;
  Path m_path = Path::dequant;
  DeviceBuffer m_wide;        // native_wide only: [L][M][128] FP16
  DeviceBuffer m_a16, m_b16;  // dequant only
};

std::unique_ptr<Runner> prepare(const CaseView& c, cudaStream_t stream) {
  return std::make_unique<LtRunner>(c.groups.at(0), stream);
}

}  // namespace

// ---- registry ----

extern const VariantInfo gemv_cublaslt;
const VariantInfo gemv_cublaslt{
    Problem::gemv,
    "cublaslt",
    "vendor baseline: cuBLASLt native NVFP4 on CC 10.x/12.x, else FP16 GEMM (N = 1) on dequantized operands",
    "without native NVFP4 (sm_90): operands dequantized to FP16 in prepare, outside the timed region; "
    "timed: cuBLASLt FP16 GEMM, FP32 compute",
    &needs_sm70,
    &prepare,
};

}  // namespace nvfp4
