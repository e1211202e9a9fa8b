// SPDX-License-Identifier: Apache-2.0
// gemv / naive
//
// Contract
//   Computes c[l][m][0] = fp16( sum_k A[l][m][k]*SFA[l][m][k/16] * B[l][0][k]*SFB[l][0][k/16] ).
//   Inputs (case_data.hpp): A [L][M][K/2] packed e2m1 (low nibble = lower k); B stored with 128
//   rows per batch as in gpu-mode, [L][128][K/2], of which only row 0 is the vector (batch stride
//   128 rows); ROW-MAJOR e4m3 scales a.sf [L][M][K/16], b.sf [L][128][K/16]; c [L][M][1] FP16.
//   The blocked scale tensors are not used.
//   Method: one thread per output row, no tiling, no shared memory: the correctness baseline.
//   Decoding through nvfp4.hpp (e2m1_to_float, e4m3_to_float). Each 16-element block's sum of
//   e2m1 products is exact in FP32; it is multiplied by sfa*sfb and added to an FP32 accumulator;
//   one rounding to FP16 (__float2half_rn).
//   Constraints: K % 16 == 0 (the problem rule is K % 64); any M, L; CC >= 7.0.
//   Timed region: the single kernel launch; nothing is done in prepare.
//   Run just this variant: nvfp4bench --problem gemv --shape 256x1024x2 --variant naive
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
  __half* c;
  int64_t m, k, l;
  int64_t b_rows;  // stored rows of B per batch (128); row 0 is the vector
};

// Thread t -> output (batch, i) with i fastest: a warp shares the vector and reads distinct A rows.
__global__ void __launch_bounds__(kThreads) gemv_naive_kernel(Args p) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= p.l * p.m) return;
  const int64_t i = t % p.m, batch = t / p.m;
  const naive::Row a = naive::row_at(p.a, p.sfa, batch * p.m + i, p.k);
  const naive::Row b = naive::row_at(p.b, p.sfb, batch * p.b_rows, p.k);  // row 0 of the batch
  const float acc = naive::row_dot(a, b, p.k);
  p.c[t] = __float2half_rn(acc);
}

// ---- launch ----

class NaiveRunner final : public Runner {
 public:
  explicit NaiveRunner(const GemmOperands& g)
      : m_args{g.a.data, g.a.sf, g.b.data, g.b.sf, g.c, g.dims.m, g.dims.k, g.dims.l, g.b.rows} {}
  void run(cudaStream_t stream) override {
    const int64_t total = m_args.l * m_args.m;
    const auto blocks = static_cast<unsigned>(ceil_div(total, kThreads));
    gemv_naive_kernel<<<blocks, kThreads, 0, stream>>>(m_args);
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

extern const VariantInfo gemv_naive;
const VariantInfo gemv_naive{
    Problem::gemv,
    "naive",
    "one thread per output row, FP32 accumulation per 16-element block, row-major scales",
    "",
    &needs_sm70,
    &prepare,
};

}  // namespace nvfp4
