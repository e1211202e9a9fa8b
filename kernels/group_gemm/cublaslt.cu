// SPDX-License-Identifier: Apache-2.0
// group_gemm / cublaslt
//
// Contract
//   The vendor baseline. For every group g: C_g = fp16( A_g . B_g^T ) with block-scaled NVFP4
//   operands (case_data.hpp, one GemmOperands per group: A_g [M_g][K_g/2], B_g [N_g][K_g/2]
//   packed e2m1, e4m3 scales; C_g [M_g][N_g] FP16 row-major; L = 1).
//   One cuBLASLt matmul per group, in group order on the stream (cuBLASLt, 13.0 as of writing, has
//   no grouped GEMM for any type: cuBLAS's cublasGemmGroupedBatchedEx is outside cuBLASLt; the
//   timing note says it is a loop):
//   - CC 10.x/12.x where cuBLASLt reports support for the group: native NVFP4 matmul
//     (CUDA_R_4F_E2M1, VEC16_UE4M3) on the packed data and BLOCKED scales, FP16 output into C_g.
//   - Elsewhere (sm_90): prepare() dequantizes A_g and B_g exactly to FP16 (untimed); run() is
//     one cuBLASLt FP16 GEMM per group, FP32 compute, FP16 output directly into C_g.
//   Algorithms come from the cuBLASLt heuristic in prepare(); run() allocates nothing and never
//   synchronises.
//   Constraints: whatever cuBLASLt accepts; memory for FP16 copies of all A_g, B_g on the
//   dequant path.
//   Run just this variant: nvfp4bench --problem group_gemm --shape 96x128x256,128x256x512 --variant cublaslt
#include <cuda_fp16.h>

#include <vector>

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
  LtRunner(const CaseView& c, cudaStream_t stream) {
    const bool native_cc = nvfp4_native_cc_current_device();
    for (const GemmOperands& g : c.groups) {
      const Dims& d = g.dims;
      Group grp;
      grp.g = g;
      grp.native = native_cc && m_lt.nvfp4_native_supported(g.a, g.b, g.c, LtOut::f16, d.m, d.n);
      if (!grp.native) {
        grp.a16 = dequantized_fp16(g.a, d.m, stream);
        grp.b16 = dequantized_fp16(g.b, d.n, stream);
        m_lt.prepare_fp16_tn(grp.a16.get<__half>(), grp.b16.get<__half>(), g.c, LtOut::f16, d.m, d.n, d.k, d.l);
      }
      m_groups.push_back(std::move(grp));
    }
  }

  void run(cudaStream_t stream) override {
    for (Group& grp : m_groups) {
      const Dims& d = grp.g.dims;
      if (grp.native)
        m_lt.nvfp4_tn(grp.g.a, grp.g.b, grp.g.c, LtOut::f16, d.m, d.n, stream);
      else
        m_lt.fp16_tn(grp.a16.get<__half>(), grp.b16.get<__half>(), grp.g.c, LtOut::f16, d.m, d.n, d.k, d.l, stream);
    }
  }

 private:
  struct Group {
    GemmOperands g;
    bool native = false;
    DeviceBuffer a16, b16;  // dequant path only
  };
  LtMatmul m_lt;
  std::vector<Group> m_groups;
};

std::unique_ptr<Runner> prepare(const CaseView& c, cudaStream_t stream) {
  return std::make_unique<LtRunner>(c, stream);
}

}  // namespace

// ---- registry ----

extern const VariantInfo group_gemm_cublaslt;
const VariantInfo group_gemm_cublaslt{
    Problem::group_gemm,
    "cublaslt",
    "vendor baseline: one cuBLASLt GEMM per group (native NVFP4 on CC 10.x/12.x, else FP16 on "
    "dequantized operands)",
    "a loop of one cuBLASLt matmul per group (cuBLASLt has no grouped GEMM); without native NVFP4 (sm_90): "
    "operands dequantized to FP16 in prepare, outside the timed region; timed: one cuBLASLt FP16 GEMM per "
    "group, FP32 compute",
    &needs_sm70,
    &prepare,
};

}  // namespace nvfp4
