// SPDX-License-Identifier: Apache-2.0
// dequant.cuh: exact NVFP4 -> FP16 dequantisation and the small epilogue kernels of the cuBLASLt
// paths (the device reference and the `cublaslt` variants on GPUs without native NVFP4).
//
// e2m1 (at most 2 significant bits) times an e4m3 scale (at most 4) has at most 6 significant
// bits and a magnitude in [2^-10, 2688], so value * scale is exact in FP16 (HARDWARE.md).
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "core/case_data.hpp"
#include "core/device_buffer.hpp"

namespace nvfp4 {

// out[b][r][kk] = e2m1(m, b, r, kk) * e4m3(row-major scale of (b, r, kk/16)), for b < m.l,
// r < rows_used, kk < m.k; out is [m.l][rows_used][m.k] FP16, contiguous. rows_used <= m.rows: the
// input's batch stride stays m.rows rows (gemv's B keeps 128 stored rows, row 0 is the vector).
// Needs m.k % 16 == 0 and `out` 16-byte aligned. Enqueued on `s`; throws std::invalid_argument on
// bad arguments.
void dequantize_fp16(const Fp4Matrix& m, int64_t rows_used, __half* out, cudaStream_t s);

// A new [m.l][rows_used][m.k] FP16 buffer filled by dequantize_fp16 (enqueued on `s`).
DeviceBuffer dequantized_fp16(const Fp4Matrix& m, int64_t rows_used, cudaStream_t s);

// out[i] = fp16_rn(in[i]), i < n.
void fp32_to_fp16(const float* in, __half* out, int64_t n, cudaStream_t s);

// silu(g) * u in FP32 as the reference computes it, silu(x) = x / (1 + exp(-x)). The dual_gemm
// `naive` and `vectorized` epilogues call this one definition, so they agree with the reference
// to the bit; `tensor-core` and `persistent` use silu_mul_fast (kernels/common/gemm_common.cuh:
// within one FP16 ulp).
__device__ __forceinline__ float silu_mul(float g, float u) { return g / (1.0f + expf(-g)) * u; }

// out[i] = fp16_rn(silu(gate[i]) * up[i]), silu(x) = x / (1 + exp(-x)); silu and the product in
// FP32, one rounding to FP16 (round to nearest even). The dual_gemm epilogue.
void silu_mul_fp16(const float* gate, const float* up, __half* out, int64_t n, cudaStream_t s);

// x[i] = |x[i]| (clears the FP16 sign bits), i < n.
void abs_fp16_inplace(__half* x, int64_t n, cudaStream_t s);

// Per-element bound on the difference between two FP32 accumulations of the same sums in
// different orders (see reference.hpp): gamma = 2*sqrt(k)*2^-24,
//   plain:     bound[i] = gamma * abs1[i]                     (abs1 = sum_k |a*b|)
//   dual_gemm: dg = gamma*abs1, du = gamma*abs2 (abs2 for B2), bound[i] =
//              |silu'(g)|*|u|*dg + |silu(g)|*du + dg*du        (g, u the FP32 sums)
// gate/up may be null for the plain case.
void accumulation_bound(const float* abs1, const float* abs2, const float* gate, const float* up, float* bound,
                        int64_t n, int64_t k, cudaStream_t s);

}  // namespace nvfp4
