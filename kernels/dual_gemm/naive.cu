// SPDX-License-Identifier: Apache-2.0
// dual_gemm / naive
//
// Contract
//   Computes C[l][m][n] = fp16( silu(X1) * X2 ), X1 = A.B1^T, X2 = A.B2^T (block-scaled NVFP4,
//   FP32), silu(x) = x / (1 + exp(-x)); silu and the product in FP32, one rounding to FP16.
//   Inputs (case_data.hpp): A [L][M][K/2], B1 = b, B2 = b2 [L][N][K/2] packed e2m1 (low nibble =
//   lower k); ROW-MAJOR e4m3 scales a.sf [L][M][K/16], b.sf / b2.sf [L][N][K/16]; C [L][M][N]
//   FP16 row-major. The blocked scale tensors are not used.
//   Method: one thread per output element, two FP32 accumulators, no tiling, no shared memory:
//   the correctness baseline. Decoding through nvfp4.hpp (e2m1_to_float, e4m3_to_float). Each
//   16-element block's sum of e2m1 products is exact in FP32; it is multiplied by sfa*sfb and
//   added to its accumulator.
//   Constraints: K % 16 == 0 (the problem rule is K % 256); any M, N, L; CC >= 7.0.
//   Timed region: the single kernel launch; nothing is done in prepare.
//   Run just this variant: nvfp4bench --problem dual_gemm --shape 256x512x1024 --variant naive
#include <cuda_fp16.h>

#include "core/case_data.hpp"
#include "core/cuda_check.hpp"
#include "core/nvfp4.hpp"
#include "core/variant.hpp"
#include "../common/naive.cuh"

namespace nvfp4 {

namespace {

// ---- kernel ----

using naive::kThreads;

struct Args {
  const uint8_t* a;
  const uint8_t* sfa;
  const uint8_t* b;
  const uint8_t* sfb;
  const uint8_t* b2;
  const uint8_t* sfb2;
  __half* c;
  int64_t m, n, k, l;
};

// Thread t -> output (batch, i, j) with j fastest: a warp shares its A row and reads distinct B rows.
__global__ void __launch_bounds__(kThreads) dual_gemm_naive_kernel(Args p) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= p.l * p.m * p.n) return;
  const int64_t j = t % p.n, i = (t / p.n) % p.m, batch = t / (p.n * p.m);
  const naive::Row a = naive::row_at(p.a, p.sfa, batch * p.m + i, p.k);
  const naive::Row b1 = naive::row_at(p.b, p.sfb, batch * p.n + j, p.k);
  const naive::Row b2 = naive::row_at(p.b2, p.sfb2, batch * p.n + j, p.k);
  float x1, x2;
  naive::dual_row_dot(a, b1, b2, p.k, x1, x2);
  p.c[t] = __float2half_rn(x1 / (1.0f + expf(-x1)) * x2);
}

// ---- launch ----

class NaiveRunner final : public Runner {
 public:
  explicit NaiveRunner(const GemmOperands& g)
      : m_args{g.a.data, g.a.sf, g.b.data, g.b.sf, g.b2.data, g.b2.sf, g.c, g.dims.m, g.dims.n, g.dims.k, g.dims.l} {}
  void run(cudaStream_t stream) override {
    const int64_t total = m_args.l * m_args.m * m_args.n;
    const auto blocks = static_cast<unsigned>(ceil_div(total, kThreads));
    dual_gemm_naive_kernel<<<blocks, kThreads, 0, stream>>>(m_args);
    CUDA_CHECK_LAUNCH();
  }

 private:
  Args m_args;
};

std::unique_ptr<Runner> prepare(const CaseView& c, cudaStream_t) {
  return std::make_unique<NaiveRunner>(c.groups.at(0));
}

}  // namespace

// ---- registry ----

extern const VariantInfo dual_gemm_naive;
const VariantInfo dual_gemm_naive{
    Problem::dual_gemm,
    "naive",
    "one thread per output, two FP32 accumulators, silu(x1)*x2 in FP32, row-major scales",
    "",
    &needs_sm70,
    &prepare,
};

}  // namespace nvfp4
