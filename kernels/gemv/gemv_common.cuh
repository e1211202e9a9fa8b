// SPDX-License-Identifier: Apache-2.0
// gemv_common.cuh: device helpers shared by the gemv variants vectorized, tensor-core and
// persistent (only those files include it).
//
// Integer decode used by vectorized and persistent ("PRMT + DP4A"):
//   2*e2m1 is an exact int8 in {0,1,2,3,4,6,8,12} (with sign). One `prmt` with the 8-byte table
//   T = {0,1,2,3,4,6,8,12} turns 4 nibbles (the selector's low 16 bits) into 4 int8 magnitudes in
//   natural k order. PRMT's selector bit 3 (= the e2m1 sign bit) means "replicate the sign of the
//   selected byte": all table bytes are positive, so negative codes give 0 ("pos" part) while the
//   same prmt on (w & 0x7777) gives |2a| ("mag" part). With the vector pre-decoded to int8 2b:
//       sum_k a*b = (2*dp4a(pos, 2b) - dp4a(mag, 2b)) / 4      (exact integers, |.| <= 2304).
//   Cost per 8 elements: 1 LOP3 + 2 SHF + 4 PRMT + 4 IDP4A = 11 integer instructions, no LUT in
//   local memory, no branches. (Checked on the host against all codes by an instruction emulator.)
// Scales: fp4::e4m3x2_to_half2 (cvt.rn.f16x2.e4m3x2 on sm_89+, exact bit fallback otherwise).
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "core/device_info.hpp"
#include "core/problem.hpp"
#include "core/fp4_decode.cuh"

namespace nvfp4::gemv_detail {

// Batch l of a gemv (blockIdx.y in every fast kernel): its A rows and their scales, its outputs,
// and its vector, row 0 of B's 128 stored rows. `P` is a kernel's argument struct with a, sfa, b,
// sfb, c, m and k.
struct GemvBatch {
  const uint8_t* a;
  const uint8_t* sfa;
  __half* c;
  const uint8_t* v;    // the vector's packed e2m1 data
  const uint8_t* sfv;  // its row-major scales
};
template <class P>
__device__ __forceinline__ GemvBatch gemv_batch(const P& p, int l) {
  const int64_t bl = l, half_k = p.k / 2, sf_k = p.k / 16;
  return GemvBatch{p.a + bl * p.m * half_k, p.sfa + bl * p.m * sf_k, p.c + bl * p.m,
                   p.b + bl * kGemvBRows * half_k, p.sfb + bl * kGemvBRows * sf_k};
}

inline constexpr uint32_t kLutLo = 0x03020100u;  // 2*{0, 0.5, 1, 1.5}
inline constexpr uint32_t kLutHi = 0x0C080604u;  // 2*{2, 3, 4, 6}

__device__ __forceinline__ uint32_t prmt(uint32_t a, uint32_t b, uint32_t sel) {
  uint32_t d;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(sel));
  return d;
}

// The low half of the table in a register the compiler cannot rematerialise: PRMT takes only one
// immediate (the high half); left as a plain constant, nvcc re-creates the low half with an
// IMAD.MOV before every PRMT. Call once per thread and pass the value down.
// (laneid >> 5 is 0, but ptxas cannot prove it, so the value stays a per-thread register rather
// than a uniform one, which PRMT could not read either.)
__device__ __forceinline__ uint32_t lut_lo_reg() {
  uint32_t r;
  asm volatile(
      "{\n\t.reg .u32 t;\n\tmov.u32 t, %%laneid;\n\tshr.u32 t, t, 5;\n\tadd.u32 %0, t, 0x03020100;\n\t}"
      : "=r"(r));
  return r;
}

// Accumulates the 8 products of one 32-bit word of A (8 e2m1) with 8 int8 values 2b (b0: k 0..3,
// b1: k 4..7) into pos/mag (see the header comment). `lut` = lut_lo_reg().
__device__ __forceinline__ void dot8(uint32_t lut, uint32_t w, uint32_t b0, uint32_t b1, int& pos, int& mag) {
  const uint32_t m = w & 0x77777777u;
  pos = __dp4a(static_cast<int>(prmt(lut, kLutHi, w)), static_cast<int>(b0), pos);
  pos = __dp4a(static_cast<int>(prmt(lut, kLutHi, w >> 16)), static_cast<int>(b1), pos);
  mag = __dp4a(static_cast<int>(prmt(lut, kLutHi, m)), static_cast<int>(b0), mag);
  mag = __dp4a(static_cast<int>(prmt(lut, kLutHi, m >> 16)), static_cast<int>(b1), mag);
}

// 4 * sum over one 16-element block (A words w0, w1; vector int8 words b = k 0..3, 4..7, 8..11, 12..15).
__device__ __forceinline__ int block_dot_x4(uint32_t lut, uint32_t w0, uint32_t w1, uint4 b) {
  int pos = 0, mag = 0;
  dot8(lut, w0, b.x, b.y, pos, mag);
  dot8(lut, w1, b.z, b.w, pos, mag);
  return 2 * pos - mag;
}

// 8 e2m1 codes -> 8 int8 values 2*v (two words, k 0..3 and 4..7). Staging only.
__device__ __forceinline__ uint2 e2m1x8_to_int8x2(uint32_t w) {
  const uint32_t n = w ^ 0x88888888u;
  const uint32_t pos_lo = prmt(kLutLo, kLutHi, w), pos_hi = prmt(kLutLo, kLutHi, w >> 16);
  const uint32_t neg_lo = prmt(kLutLo, kLutHi, n), neg_hi = prmt(kLutLo, kLutHi, n >> 16);
  return make_uint2(__vsub4(pos_lo, neg_lo), __vsub4(pos_hi, neg_hi));  // one of each pair is 0
}

// Two e4m3 codes (low byte -> .x) to FP16x2, exact: src/core/fp4_decode.cuh.
using fp4::e4m3x2_to_half2;

__device__ __forceinline__ float2 e4m3x2_to_float2(uint32_t codes16) {
  return __half22float2(e4m3x2_to_half2(codes16));
}

__device__ __forceinline__ float e4m3_to_float_dev(uint32_t code) {
  return __low2float(e4m3x2_to_half2(code & 0xFFu));
}

// ---- loads ----

// Streaming 16-byte load of the matrix: read once, keep it out of L1.
__device__ __forceinline__ uint4 ldg_stream_v4(const void* p) {
  uint4 v;
  asm("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

__device__ __forceinline__ uint32_t ldg_stream_u16(const void* p) {
  unsigned short v;
  asm("ld.global.nc.L1::no_allocate.u16 %0, [%1];" : "=h"(v) : "l"(p));
  return v;
}

// ---- vector staging (vectorized, persistent) ----

// Shared-memory image of one batch's vector: int8 2*b for every k (natural order), then
// sb/4 as FP32 per 16-block (the 1/4 undoes the two factors of 2 of the int8 products).
// Bytes: K + K/4. K % 64 == 0 keeps both parts 16-byte aligned.
__host__ __device__ constexpr int64_t vector_smem_bytes(int64_t k) { return k + k / 4; }

// All threads of the block take part; no barrier inside (the caller syncs).
__device__ __forceinline__ void stage_vector_int8(const uint8_t* __restrict__ b_row, const uint8_t* __restrict__ sfb_row,
                                                  int k, uint8_t* smem) {
  const int chunks = k / 32;  // 16-byte chunks of packed e2m1
  for (int c = threadIdx.x; c < chunks; c += blockDim.x) {
    const uint4 w = __ldg(reinterpret_cast<const uint4*>(b_row) + c);
    const uint2 q0 = e2m1x8_to_int8x2(w.x), q1 = e2m1x8_to_int8x2(w.y);
    const uint2 q2 = e2m1x8_to_int8x2(w.z), q3 = e2m1x8_to_int8x2(w.w);
    uint4* dst = reinterpret_cast<uint4*>(smem + 32 * c);
    dst[0] = make_uint4(q0.x, q0.y, q1.x, q1.y);
    dst[1] = make_uint4(q2.x, q2.y, q3.x, q3.y);
  }
  float* sbq = reinterpret_cast<float*>(smem + k);
  for (int j = threadIdx.x; j < k / 16; j += blockDim.x) sbq[j] = 0.25f * e4m3_to_float_dev(sfb_row[j]);
}

// Sum over the `width` lanes of an aligned lane group (width a power of two <= 32).
__device__ __forceinline__ float group_sum(float v, int width) {
  for (int off = width >> 1; off > 0; off >>= 1) v += __shfl_xor_sync(0xFFFFFFFFu, v, off);
  return v;
}

// The checks the three fast gemv variants share: CC >= 8.9 (cvt.rn.f16x2.e4m3x2), K % 64 == 0,
// their shared memory (`smem_bytes` for this K, described by `smem_what`) within the opt-in limit,
// and M, L and K within the index types (`max_rows_times_l` bounds M*L).
inline std::string unsupported_common(const DeviceInfo& dev, const Dims& d, const char* needs, int64_t smem_bytes,
                                      const char* smem_what, int64_t max_rows_times_l) {
  if (dev.cc() < 89) return std::string("needs compute capability 8.9 or newer (") + needs + ")";
  if (d.k % 64 != 0) return "needs K % 64 == 0";
  if (smem_bytes > dev.smem_per_block_optin) return std::string(smem_what) + " exceeds the shared memory per block";
  if (d.l > 65535 || d.m * d.l > max_rows_times_l || d.m * d.k / 2 >= (int64_t{1} << 40) || d.k > (int64_t{1} << 22))
    return "shape too large for the index types";
  return "";
}

}  // namespace nvfp4::gemv_detail
