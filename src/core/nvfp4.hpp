// SPDX-License-Identifier: Apache-2.0
// nvfp4.hpp: the NVFP4 format contract, shared by host code, generators, references and kernels.
//
// Element: e2m1 (FP4), 1 sign bit, 2 exponent bits (bias 1), 1 mantissa bit.
//   codes 0..7 = {0, 0.5, 1, 1.5, 2, 3, 4, 6}; bit 3 is the sign (code 8 is -0).
//   Two elements per byte: the element with the LOWER k index sits in the LOW nibble
//   (NVIDIA __nv_fp4x2_e2m1 convention).
// Scale: e4m3fn (FP8), one per 16 consecutive elements along K. 0x7F / 0xFF are NaN, no infinities,
//   max 448, subnormals m * 2^-9. Scales are used unsigned (cuBLAS UE4M3) by the gpu-mode data
//   but decoded with their sign here.
// Scale layouts (PROBLEMS.md section 1.3):
//   row-major  [L][rows][K/16]
//   blocked    [L][ceil(rows/128)][ceil(K/64)][512-byte atom]; inside an atom
//              (i%32)*16 + ((i%128)/32)*4 + (j%4) for row i and scale column j.
// Math: C[m,n,l] = fp16( sum_k A[m,k,l]*SFA[m,k/16,l] * B[n,k,l]*SFB[n,k/16,l] ).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define NVFP4_HD __host__ __device__ __forceinline__
#else
#define NVFP4_HD inline
#endif

namespace nvfp4 {

inline constexpr int kSfVec = 16;          // elements per scale factor
inline constexpr int kAtomRows = 128;      // rows per blocked scale atom
inline constexpr int kAtomSfCols = 4;      // scale columns per blocked scale atom
inline constexpr int kAtomBytes = 512;

// ---- e2m1 -------------------------------------------------------------------------------------

// Value of an e2m1 code (low 4 bits of `code`), branch-free: magnitude = 0.5 * m for E = 0,
// 2^(E-1) * (1 + M/2) otherwise.
NVFP4_HD float e2m1_to_float(unsigned code) {
  const unsigned e = (code >> 1) & 3u, m = code & 1u;
  const float mag = e == 0 ? 0.5f * static_cast<float>(m)
                           : static_cast<float>(1u << e) * 0.25f * static_cast<float>(2u + m);
  return (code & 8u) ? -mag : mag;
}

// Low nibble = element 2j, high nibble = element 2j+1.
NVFP4_HD unsigned fp4_lo(uint8_t byte) { return byte & 0xFu; }
NVFP4_HD unsigned fp4_hi(uint8_t byte) { return byte >> 4; }

// ---- e4m3fn -----------------------------------------------------------------------------------

NVFP4_HD bool e4m3_is_nan(uint8_t code) { return (code & 0x7Fu) == 0x7Fu; }

// Value of an e4m3fn code. NaN codes decode to NaN.
NVFP4_HD float e4m3_to_float(uint8_t code) {
  const unsigned e = (code >> 3) & 0xFu, m = code & 7u;
  float mag;
  if (e4m3_is_nan(code)) {
    mag = __builtin_nanf("");
  } else if (e == 0) {
    mag = static_cast<float>(m) * (1.0f / 512.0f);  // subnormal: m * 2^-9
  } else {
    // 2^(e-7) * (1 + m/8) = (8 + m) * 2^(e-10)
    const float p = e >= 10 ? static_cast<float>(1u << (e - 10)) : 1.0f / static_cast<float>(1u << (10 - e));
    mag = static_cast<float>(8u + m) * p;
  }
  return (code & 0x80u) ? -mag : mag;
}

// ---- scale-factor layouts ---------------------------------------------------------------------

NVFP4_HD int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct SfGeometry {
  int64_t rows;      // M or N (rows of the operand)
  int64_t sf_cols;   // K / 16
  int64_t batches;   // L
  NVFP4_HD int64_t row_blocks() const { return ceil_div(rows, kAtomRows); }
  NVFP4_HD int64_t col_blocks() const { return ceil_div(sf_cols, kAtomSfCols); }
  NVFP4_HD int64_t rowmajor_bytes() const { return rows * sf_cols * batches; }
  NVFP4_HD int64_t blocked_bytes_per_batch() const { return row_blocks() * col_blocks() * kAtomBytes; }
  NVFP4_HD int64_t blocked_bytes() const { return blocked_bytes_per_batch() * batches; }
  // Byte offset of scale (row i, scale column j, batch b) in the row-major layout.
  NVFP4_HD int64_t rowmajor_offset(int64_t i, int64_t j, int64_t b) const {
    return (b * rows + i) * sf_cols + j;
  }
  // Byte offset of the same scale in the blocked ("permuted") layout, PROBLEMS.md 1.3.
  NVFP4_HD int64_t blocked_offset(int64_t i, int64_t j, int64_t b) const {
    return b * blocked_bytes_per_batch() + (i / kAtomRows) * (col_blocks() * kAtomBytes) +
           (j / kAtomSfCols) * kAtomBytes + (i % 32) * 16 + ((i % kAtomRows) / 32) * 4 + (j % kAtomSfCols);
  }
};

}  // namespace nvfp4
