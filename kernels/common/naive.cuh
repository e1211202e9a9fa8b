// SPDX-License-Identifier: Apache-2.0
// naive.cuh: the dot products shared by the four `naive` variants. Decoding goes through
// nvfp4.hpp only (e2m1_to_float, e4m3_to_float) and the ROW-MAJOR scales.
//
// Per 16-element block, the sum of e2m1 x e2m1 products is exact in FP32 (each product is a
// multiple of 1/4 of magnitude <= 36); it is scaled by sfa*sfb and added to an FP32 accumulator.
#pragma once

#include <cstdint>
#include "core/nvfp4.hpp"

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

}  // namespace nvfp4::naive
