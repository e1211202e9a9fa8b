// SPDX-License-Identifier: Apache-2.0
// fp4_decode.cuh: NVFP4 -> FP16 / FP32 decode on CUDA cores, shared by the GEMM-family variants
// (kernels/common/gemm_*.cuh), the gemv variants and calibrate's decode-plus-wgmma ceiling (src/measure); usable by any kernel. Exact everywhere.
//
// e2m1 nibble S EE M. Shift trick: put S at FP16 bit 15 and EEM at bits 11..9. The 16-bit word
// then IS the FP16 value * 2^-14 (EE = 0, M = 1 lands on the FP16 subnormal 2^-15 = 0.5 * 2^-14).
// One 32-bit word (8 nibbles, element j in bits 4j..4j+3) gives 4 half2 in "decode order":
//   h[i] = (element i, element i + 4)      (low half, high half), i = 0..3.
// Multiplying by the element's e4m3 scale s in FP16 (HMUL2) stays exact: v*s has at most 6
// significant bits and is a multiple of 2^-10 (v a multiple of 2^-1, s of 2^-9), so v*s*2^-14 is a
// multiple of 2^-24, the FP16 subnormal step, and at most 2688 * 2^-14: representable. The 2^14 is
// put back in FP32 after the dot product (kRawScale).
// Cost: 4 shifts + 4 LOP3-class ops + 4 HMUL2 per 8 values.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace nvfp4::fp4 {

// Decoded raw values are value * 2^-14: multiply FP32 results by this once.
inline constexpr float kRawScale = 16384.0f;

// h[2P] and h[2P + 1] of e2m1x8_to_raw_half2x4 (P = 0 or 1): one k16 slice of a 16-element block
// at a time.
template <int P>
__device__ __forceinline__ void e2m1x8_to_raw_half2x2(uint32_t w, uint32_t& h0, uint32_t& h1) {
  static_assert(P == 0 || P == 1, "P selects elements {0, 4, 1, 5} or {2, 6, 3, 7}");
  if constexpr (P == 0) {
    h0 = ((w << 12) & 0x80008000u) | ((w << 9) & 0x0E000E00u);
    h1 = ((w << 8) & 0x80008000u) | ((w << 5) & 0x0E000E00u);
  } else {
    h0 = ((w << 4) & 0x80008000u) | ((w << 1) & 0x0E000E00u);
    h1 = (w & 0x80008000u) | ((w >> 3) & 0x0E000E00u);
  }
}

__device__ __forceinline__ void e2m1x8_to_raw_half2x4(uint32_t w, uint32_t (&h)[4]) {
  e2m1x8_to_raw_half2x2<0>(w, h[0], h[1]);
  e2m1x8_to_raw_half2x2<1>(w, h[2], h[3]);
}

// Two e4m3 codes (low byte -> .x) to FP16x2, exact. sm_89+: one cvt; else an exact bit rebuild.
__device__ __forceinline__ __half2 e4m3x2_to_half2(uint32_t codes16) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  uint32_t r;
  const unsigned short h = static_cast<unsigned short>(codes16);
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(r) : "h"(h));
  return *reinterpret_cast<__half2*>(&r);
#else
  // S EEEE MMM -> FP16 S 0EEEE MMM0000000 is the value * 2^-8 (normals and subnormals alike).
  // NaN codes (0x7F/0xFF) become 1.75 * 2^8 here; the sm_89+ path returns NaN.
  const uint32_t lo = codes16 & 0xFFu, hi = (codes16 >> 8) & 0xFFu;
  const uint32_t bits = ((lo & 0x80u) << 8) | ((lo & 0x7Fu) << 7) | ((hi & 0x80u) << 24) | ((hi & 0x7Fu) << 23);
  __half2 v = *reinterpret_cast<const __half2*>(&bits);
  return __hmul2(v, __float2half2_rn(256.0f));
#endif
}

__device__ __forceinline__ __half2 e4m3_to_half2_bcast(uint32_t code) {
  return __low2half2(e4m3x2_to_half2(code & 0xFFu));
}

__device__ __forceinline__ uint32_t hmul2_u32(uint32_t x, __half2 s) {
  __half2 v = __hmul2(*reinterpret_cast<const __half2*>(&x), s);
  return *reinterpret_cast<uint32_t*>(&v);
}

// One 16-element scale block (8 bytes: words lo = elements 0..7, hi = 8..15) times its scale, as
// 8 half2 of value*scale*2^-14: h[0..3] from `lo`, h[4..7] from `hi`, each in decode order.
__device__ __forceinline__ void decode_block16_raw(uint2 packed, __half2 scale, uint32_t (&h)[8]) {
  uint32_t a[4], b[4];
  e2m1x8_to_raw_half2x4(packed.x, a);
  e2m1x8_to_raw_half2x4(packed.y, b);
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    h[i] = hmul2_u32(a[i], scale);
    h[4 + i] = hmul2_u32(b[i], scale);
  }
}

// 8 elements of one word times `scale` (FP32) as true FP32 values, in decode order:
// out[2i] = element i, out[2i+1] = element i + 4.
__device__ __forceinline__ void decode8_f32(uint32_t w, float scale, float (&out)[8]) {
  uint32_t h[4];
  e2m1x8_to_raw_half2x4(w, h);
  const float s = scale * kRawScale;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 f = __half22float2(*reinterpret_cast<const __half2*>(&h[i]));
    out[2 * i] = f.x * s;
    out[2 * i + 1] = f.y * s;
  }
}

}  // namespace nvfp4::fp4
