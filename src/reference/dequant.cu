// SPDX-License-Identifier: Apache-2.0
// dequant.cu: see dequant.cuh.
#include "reference/dequant.cuh"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/cuda_check.hpp"
#include "core/nvfp4.hpp"

namespace nvfp4 {

namespace {

constexpr int kThreads = 256;

bool aligned(const void* p, uintptr_t bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; }

unsigned grid_for(int64_t threads_needed) {
  return static_cast<unsigned>(std::max<int64_t>(1, ceil_div(threads_needed, kThreads)));
}

// Loads `kBytes` (16 or 8) bytes of packed e2m1 as 32-bit words.
template <int kBytes>
__device__ __forceinline__ void load_words(const uint8_t* p, uint32_t (&w)[kBytes / 4]) {
  if constexpr (kBytes == 16) {
    const uint4 v = __ldg(reinterpret_cast<const uint4*>(p));
    w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
  } else {
    static_assert(kBytes == 8);
    const uint2 v = __ldg(reinterpret_cast<const uint2*>(p));
    w[0] = v.x, w[1] = v.y;
  }
}

__device__ __forceinline__ uint32_t as_u32(__half2 h) { return *reinterpret_cast<uint32_t*>(&h); }

// One thread per kEpt consecutive elements of a row (kEpt = 32: one 16-byte load and two scales;
// kEpt = 16: one 8-byte load and one scale). Each byte decodes through a 256-entry shared table
// byte -> (lo, hi) as FP16, then one exact FP16 multiply by the block's scale.
template <int kEpt>
__global__ void __launch_bounds__(kThreads) dequant_kernel(const uint8_t* __restrict__ data,
                                                           const uint8_t* __restrict__ sf, int64_t rows,
                                                           int64_t rows_used, int64_t k, int64_t l,
                                                           __half* __restrict__ out) {
  __shared__ __half2 lut[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x)
    lut[i] = __floats2half2_rn(e2m1_to_float(fp4_lo(static_cast<uint8_t>(i))),
                               e2m1_to_float(fp4_hi(static_cast<uint8_t>(i))));
  __syncthreads();

  const int64_t chunks = k / kEpt;
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= l * rows_used * chunks) return;
  const int64_t c = t % chunks;
  const int64_t br = t / chunks;
  const int64_t r = br % rows_used, b = br / rows_used;
  const int64_t src_row = b * rows + r;

  constexpr int kBytes = kEpt / 2, kScales = kEpt / kSfVec;
  uint32_t w[kBytes / 4];
  load_words<kBytes>(data + src_row * (k / 2) + c * kBytes, w);
  const uint8_t* s = sf + src_row * (k / kSfVec) + c * kScales;

  uint4* dst = reinterpret_cast<uint4*>(out + ((b * rows_used + r) * k + c * kEpt));
#pragma unroll
  for (int blk = 0; blk < kScales; ++blk) {  // 16 elements: 2 words in, 2 uint4 out
    const __half2 scale = __half2half2(__float2half_rn(e4m3_to_float(s[blk])));
    uint32_t o[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const uint32_t byte = (w[blk * 2 + j / 4] >> (8 * (j % 4))) & 0xFFu;
      o[j] = as_u32(__hmul2(lut[byte], scale));
    }
    dst[blk * 2] = make_uint4(o[0], o[1], o[2], o[3]);
    dst[blk * 2 + 1] = make_uint4(o[4], o[5], o[6], o[7]);
  }
}

// kVec = 4: float4 loads, 8-byte stores; kVec = 1: scalar.
template <int kVec>
__global__ void __launch_bounds__(kThreads) fp32_to_fp16_kernel(const float* __restrict__ in,
                                                                 __half* __restrict__ out, int64_t n) {
  const int64_t i = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * kVec;
  if (i >= n) return;
  if constexpr (kVec == 4) {
    const float4 v = *reinterpret_cast<const float4*>(in + i);
    uint2 o;
    o.x = as_u32(__floats2half2_rn(v.x, v.y));
    o.y = as_u32(__floats2half2_rn(v.z, v.w));
    *reinterpret_cast<uint2*>(out + i) = o;
  } else {
    out[i] = __float2half_rn(in[i]);
  }
}


template <int kVec>
__global__ void __launch_bounds__(kThreads) silu_mul_kernel(const float* __restrict__ gate,
                                                             const float* __restrict__ up,
                                                             __half* __restrict__ out, int64_t n) {
  const int64_t i = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * kVec;
  if (i >= n) return;
  if constexpr (kVec == 4) {
    const float4 g = *reinterpret_cast<const float4*>(gate + i);
    const float4 u = *reinterpret_cast<const float4*>(up + i);
    uint2 o;
    o.x = as_u32(__floats2half2_rn(silu_mul(g.x, u.x), silu_mul(g.y, u.y)));
    o.y = as_u32(__floats2half2_rn(silu_mul(g.z, u.z), silu_mul(g.w, u.w)));
    *reinterpret_cast<uint2*>(out + i) = o;
  } else {
    out[i] = __float2half_rn(silu_mul(gate[i], up[i]));
  }
}

__global__ void __launch_bounds__(kThreads) abs_kernel(__half* x, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) x[i] = __habs(x[i]);
}

__global__ void __launch_bounds__(kThreads) bound_kernel(const float* abs1, const float* abs2, const float* gate,
                                                         const float* up, float* bound, int64_t n, float gamma) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float dg = gamma * abs1[i];
  if (!abs2) {
    bound[i] = dg;
    return;
  }
  const float du = gamma * abs2[i], g = gate[i], u = up[i];
  const float sig = 1.0f / (1.0f + expf(-g));
  const float dsilu = fabsf(sig * (1.0f + g * (1.0f - sig)));
  bound[i] = dsilu * fabsf(u) * dg + fabsf(g * sig) * du + dg * du;
}

}  // namespace

void abs_fp16_inplace(__half* x, int64_t n, cudaStream_t s) {
  if (n <= 0) return;
  abs_kernel<<<grid_for(n), kThreads, 0, s>>>(x, n);
  CUDA_CHECK_LAUNCH();
}

void accumulation_bound(const float* abs1, const float* abs2, const float* gate, const float* up, float* bound,
                        int64_t n, int64_t k, cudaStream_t s) {
  if (n <= 0) return;
  const float gamma = 2.0f * sqrtf(static_cast<float>(k)) * 0x1p-24f;
  bound_kernel<<<grid_for(n), kThreads, 0, s>>>(abs1, abs2, gate, up, bound, n, gamma);
  CUDA_CHECK_LAUNCH();
}

void dequantize_fp16(const Fp4Matrix& m, int64_t rows_used, __half* out, cudaStream_t s) {
  if (m.k <= 0 || m.k % kSfVec != 0)
    throw std::invalid_argument("dequantize_fp16: k must be a positive multiple of 16, got " + std::to_string(m.k));
  if (rows_used <= 0 || rows_used > m.rows)
    throw std::invalid_argument("dequantize_fp16: rows_used must be in [1, rows]");
  if (!aligned(out, 16) || !aligned(m.data, 8))
    throw std::invalid_argument("dequantize_fp16: output needs 16-byte and data 8-byte alignment");
  if (m.k % 32 == 0 && aligned(m.data, 16)) {
    const int64_t threads = m.l * rows_used * (m.k / 32);
    dequant_kernel<32><<<grid_for(threads), kThreads, 0, s>>>(m.data, m.sf, m.rows, rows_used, m.k, m.l, out);
  } else {
    const int64_t threads = m.l * rows_used * (m.k / 16);
    dequant_kernel<16><<<grid_for(threads), kThreads, 0, s>>>(m.data, m.sf, m.rows, rows_used, m.k, m.l, out);
  }
  CUDA_CHECK_LAUNCH();
}

DeviceBuffer dequantized_fp16(const Fp4Matrix& m, int64_t rows_used, cudaStream_t s) {
  DeviceBuffer out(static_cast<size_t>(m.l * rows_used * m.k) * sizeof(__half));
  dequantize_fp16(m, rows_used, out.get<__half>(), s);
  return out;
}

void fp32_to_fp16(const float* in, __half* out, int64_t n, cudaStream_t s) {
  if (n <= 0) return;
  if (n % 4 == 0 && aligned(in, 16) && aligned(out, 8))
    fp32_to_fp16_kernel<4><<<grid_for(n / 4), kThreads, 0, s>>>(in, out, n);
  else
    fp32_to_fp16_kernel<1><<<grid_for(n), kThreads, 0, s>>>(in, out, n);
  CUDA_CHECK_LAUNCH();
}

void silu_mul_fp16(const float* gate, const float* up, __half* out, int64_t n, cudaStream_t s) {
  if (n <= 0) return;
  if (n % 4 == 0 && aligned(gate, 16) && aligned(up, 16) && aligned(out, 8))
    silu_mul_kernel<4><<<grid_for(n / 4), kThreads, 0, s>>>(gate, up, out, n);
  else
    silu_mul_kernel<1><<<grid_for(n), kThreads, 0, s>>>(gate, up, out, n);
  CUDA_CHECK_LAUNCH();
}

}  // namespace nvfp4
