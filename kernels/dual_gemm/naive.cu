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

#include "case_data.hpp"
#include "cuda_check.hpp"
#include "nvfp4.hpp"
#include "variant.hpp"

namespace nvfp4 {

namespace {

// ---- kernel ----

constexpr int kThreads = 256;

// Sum over one 16-element block of products of e2m1 values (8 packed bytes each, given as two
// 32-bit words). Every product is a multiple of 1/4 of magnitude <= 36: the FP32 sum is exact.
__device__ __forceinline__ float block_dot(uint2 a, uint2 b) {
  float sum = 0.0f;
  const uint32_t wa[2] = {a.x, a.y}, wb[2] = {b.x, b.y};
#pragma unroll
  for (int w = 0; w < 2; ++w)
#pragma unroll
    for (int nib = 0; nib < 8; ++nib)
      sum += e2m1_to_float((wa[w] >> (4 * nib)) & 0xFu) * e2m1_to_float((wb[w] >> (4 * nib)) & 0xFu);
  return sum;
}

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
  const int64_t a_row = batch * p.m + i, b_row = batch * p.n + j;
  const int64_t sf_cols = p.k / kSfVec;
  const uint2* a = reinterpret_cast<const uint2*>(p.a + a_row * (p.k / 2));  // 8 bytes = 16 elements
  const uint2* b = reinterpret_cast<const uint2*>(p.b + b_row * (p.k / 2));
  const uint8_t* sfa = p.sfa + a_row * sf_cols;
  const uint8_t* sfb = p.sfb + b_row * sf_cols;
  const uint2* b2 = reinterpret_cast<const uint2*>(p.b2 + b_row * (p.k / 2));
  const uint8_t* sfb2 = p.sfb2 + b_row * sf_cols;
  float x1 = 0.0f, x2 = 0.0f;
  for (int64_t blk = 0; blk < sf_cols; ++blk) {
    const uint2 av = a[blk];
    const float sa = e4m3_to_float(sfa[blk]);
    x1 += block_dot(av, b[blk]) * (sa * e4m3_to_float(sfb[blk]));
    x2 += block_dot(av, b2[blk]) * (sa * e4m3_to_float(sfb2[blk]));
  }
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

std::string unsupported(const DeviceInfo& dev, const Shape&) {
  return dev.cc() < 70 ? "needs compute capability 7.0 or newer" : "";
}

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
    &unsupported,
    &prepare,
};

}  // namespace nvfp4
