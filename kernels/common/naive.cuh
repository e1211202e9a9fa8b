// SPDX-License-Identifier: Apache-2.0
// naive.cuh: the body shared by the four `naive` variants: the dot products, the indexing of one
// output element, the kernel and its launch. Each problem's file keeps only what differs: its
// epilogue (dual_gemm: silu(x1)*x2) or its launch (group_gemm: one launch over a device table).
// Decoding goes through nvfp4.hpp only (e2m1_to_float, e4m3_to_float) and the ROW-MAJOR scales.
//
// Per 16-element block, the sum of e2m1 x e2m1 products is exact in FP32 (each product is a
// multiple of 1/4 of magnitude <= 36); it is scaled by sfa*sfb and added to an FP32 accumulator;
// one rounding to FP16 at the end (__float2half_rn).
#pragma once

#include <cuda_fp16.h>

#include <cstdint>
#include <memory>

#include "core/case_data.hpp"
#include "core/cuda_check.hpp"
#include "core/nvfp4.hpp"
#include "core/variant.hpp"

namespace nvfp4::naive {

inline constexpr int kThreads = 256;

// One operand row: 8 bytes (16 elements) per scale block, and that row's scales.
struct Row {
  const uint2* data;
  const uint8_t* sf;
};

// Row `row` (batch already folded in: row = batch * rows_per_batch + r) of an operand with K = k.
__device__ __forceinline__ Row row_at(const uint8_t* data, const uint8_t* sf, int64_t row, int64_t k) {
  return Row{reinterpret_cast<const uint2*>(data + row * (k / 2)), sf + row * (k / kSfVec)};
}

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

// sum_k a[k]*sfa[k/16] * b[k]*sfb[k/16] in FP32, block by block.
__device__ __forceinline__ float row_dot(Row a, Row b, int64_t k) {
  float acc = 0.0f;
  for (int64_t blk = 0; blk < k / kSfVec; ++blk)
    acc += block_dot(a.data[blk], b.data[blk]) * (e4m3_to_float(a.sf[blk]) * e4m3_to_float(b.sf[blk]));
  return acc;
}

// Both dual_gemm dot products over one pass of A.
__device__ __forceinline__ void dual_row_dot(Row a, Row b1, Row b2, int64_t k, float& x1, float& x2) {
  x1 = x2 = 0.0f;
  for (int64_t blk = 0; blk < k / kSfVec; ++blk) {
    const uint2 av = a.data[blk];
    const float sa = e4m3_to_float(a.sf[blk]);
    x1 += block_dot(av, b1.data[blk]) * (sa * e4m3_to_float(b1.sf[blk]));
    x2 += block_dot(av, b2.data[blk]) * (sa * e4m3_to_float(b2.sf[blk]));
  }
}

// One GEMM as the naive kernels see it. gemv is the case n == 1 with B stored in 128 rows per
// batch (row 0 is the vector); group_gemm passes one of these per group with l == 1.
struct Args {
  const uint8_t* a;
  const uint8_t* sfa;
  const uint8_t* b;
  const uint8_t* sfb;
  const uint8_t* b2;    // dual_gemm only
  const uint8_t* sfb2;  // dual_gemm only
  __half* c;
  int64_t m, n, k, l;
  int64_t b_rows;  // stored rows of B per batch: n, or 128 for gemv
};

inline Args args_of(const GemmOperands& g) {
  return Args{g.a.data, g.a.sf, g.b.data, g.b.sf, g.b2.data, g.b2.sf, g.c, g.dims.m, g.dims.n, g.dims.k, g.dims.l,
              g.b.rows};
}

// The plain epilogue: C = A.B^T. An epilogue maps (A row, B row index) to the FP32 output value.
struct Dot {
  __device__ __forceinline__ static float value(const Args& p, Row a, int64_t b_row) {
    return row_dot(a, row_at(p.b, p.sfb, b_row, p.k), p.k);
  }
};

// Output element t of one GEMM -> (batch, i, j) with j fastest: a warp shares its A row and reads
// distinct B rows (gemv: n == 1, so a warp shares the vector and reads distinct A rows).
template <class Epilogue>
__device__ __forceinline__ void output(const Args& p, int64_t t) {
  const int64_t j = t % p.n, i = (t / p.n) % p.m, batch = t / (p.n * p.m);
  const Row a = row_at(p.a, p.sfa, batch * p.m + i, p.k);
  p.c[t] = __float2half_rn(Epilogue::value(p, a, batch * p.b_rows + j));
}

namespace {  // one copy per variant file, so each variant has its own kernel

// One thread per output element, no tiling, no shared memory.
template <class Epilogue>
__global__ void __launch_bounds__(kThreads) kernel(Args p) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= p.l * p.m * p.n) return;
  output<Epilogue>(p, t);
}

// One launch over all L batches of group 0.
template <class Epilogue>
class SingleLaunch final : public Runner {
 public:
  explicit SingleLaunch(const GemmOperands& g) : m_args(args_of(g)) {}
  void run(cudaStream_t stream) override {
    const int64_t total = m_args.l * m_args.m * m_args.n;
    const auto blocks = static_cast<unsigned>(ceil_div(total, kThreads));
    kernel<Epilogue><<<blocks, kThreads, 0, stream>>>(m_args);
    CUDA_CHECK_LAUNCH();
  }

 private:
  Args m_args;
};

// VariantInfo::prepare of gemv, gemm and dual_gemm: nothing is done before the timed launch.
template <class Epilogue>
std::unique_ptr<Runner> prepare(const CaseView& c, cudaStream_t) {
  return std::make_unique<SingleLaunch<Epilogue>>(c.groups.at(0));
}

}  // namespace

}  // namespace nvfp4::naive
