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
//
// Byte form (docs/perf-notes.md P14): the FP16 word of a nibble has a zero low byte and the high
// byte S00EEM0 (S at bit 7, EEM at bits 3..1). Two words hold those bytes for all 8 elements:
//   even = bytes of elements 0, 2, 4, 6 (the low nibble of each byte of w)
//   odd  = bytes of elements 1, 3, 5, 7 (the high nibble of each byte)
// and each h[i] is two of their bytes moved into the high bytes of a half2 (one PRMT). With the
// nibbles of the other parity masked away first, the two shifted copies of a nibble never overlap
// under the mask 0x8E8E8E8E, so one LOP3 merges and masks them. Cost per 8 values: 7 ops for the
// two byte words + 4 PRMT = 11 integer ops (the per-pair masking it replaces took 15), + 4 HMUL2.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace nvfp4::fp4 {

// Decoded raw values are value * 2^-14: multiply FP32 results by this once.
inline constexpr float kRawScale = 16384.0f;
// A dot product of two raw operands (the GEMM kernels' weights and their token workspace, both
// a*sa*2^-14) is the true one times 2^-28: multiply its FP32 result by this once.
inline constexpr float kRawScale2 = kRawScale * kRawScale;

struct E2m1Bytes {
  uint32_t even, odd;
};
// The masks written as LOP3s: left to itself the compiler moves the `lo` mask past the shifts
// and regroups the merge, one or two more operations per word.
template <uint32_t M>
__device__ __forceinline__ uint32_t and_mask(uint32_t a) {
  uint32_t r;
  asm("and.b32 %0, %1, %2;" : "=r"(r) : "r"(a), "n"(M));
  return r;
}
__device__ __forceinline__ uint32_t or_and_8e(uint32_t a, uint32_t b) {
  uint32_t r;
  asm("lop3.b32 %0, %1, %2, %3, 0xA8;" : "=r"(r) : "r"(a), "r"(b), "n"(0x8E8E8E8Eu));  // (a | b) & c
  return r;
}
__device__ __forceinline__ E2m1Bytes e2m1x8_bytes(uint32_t w) {
  const uint32_t lo = and_mask<0x0F0F0F0Fu>(w), hi = and_mask<0xF0F0F0F0u>(w);
  return {or_and_8e(lo << 4, lo << 1), or_and_8e(hi, hi >> 3)};
}
// Bytes 0 and 2 (Q = 0) or 1 and 3 (Q = 1) of `bytes` into the high bytes of a half2, zeros below.
template <int Q>
__device__ __forceinline__ uint32_t bytes_to_half2(uint32_t bytes) {
  uint32_t r;
  // PRMT selector nibbles, lowest output byte first: 4 = a byte of the zero operand.
  asm("prmt.b32 %0, %1, 0, %2;" : "=r"(r) : "r"(bytes), "n"(Q == 0 ? 0x2404 : 0x3414));
  return r;
}

// h[2P] and h[2P + 1] of e2m1x8_to_raw_half2x4 (P = 0 or 1): one k16 slice of a 16-element block
// at a time, from the word's byte form.
template <int P>
__device__ __forceinline__ void e2m1x8_to_raw_half2x2(const E2m1Bytes& b, uint32_t& h0, uint32_t& h1) {
  static_assert(P == 0 || P == 1, "P selects elements {0, 4, 1, 5} or {2, 6, 3, 7}");
  h0 = bytes_to_half2<P>(b.even);
  h1 = bytes_to_half2<P>(b.odd);
}

__device__ __forceinline__ void e2m1x8_to_raw_half2x4(uint32_t w, uint32_t (&h)[4]) {
  const E2m1Bytes b = e2m1x8_bytes(w);
  e2m1x8_to_raw_half2x2<0>(b, h[0], h[1]);
  e2m1x8_to_raw_half2x2<1>(b, h[2], h[3]);
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
