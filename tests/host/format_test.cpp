// SPDX-License-Identifier: Apache-2.0
// The codecs of nvfp4.hpp against literal tables and the toolkit's host conversions
// (cuda_fp4.h, cuda_fp8.h) over every code.
#include <cuda_fp4.h>
#include <cuda_fp8.h>
#include <gtest/gtest.h>

#include <cmath>

#include "core/nvfp4.hpp"

using namespace nvfp4;

TEST(E2m1, LiteralTable) {
  const float table[16] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6, -0.0f, -0.5f, -1, -1.5f, -2, -3, -4, -6};
  for (unsigned c = 0; c < 16; ++c) {
    EXPECT_EQ(e2m1_to_float(c), table[c]) << "code " << c;
    EXPECT_EQ(std::signbit(e2m1_to_float(c)), c >= 8) << "sign of code " << c;
  }
}

TEST(E2m1, MatchesCudaFp4HostConversion) {
  for (unsigned c = 0; c < 16; ++c) {
    const __half_raw h = __nv_cvt_fp4_to_halfraw(static_cast<__nv_fp4_storage_t>(c), __NV_E2M1);
    const float ref = __half2float(__half(h));
    EXPECT_EQ(e2m1_to_float(c), ref) << "code " << c;
  }
}

TEST(E2m1, NibbleOrderLowIsLowerK) {
  // __nv_fp4x2_e2m1 convention: the first (lower-index) value in bits 3:0.
  const uint8_t byte = 0x72;  // low nibble 2 (1.0), high nibble 7 (6.0)
  EXPECT_EQ(e2m1_to_float(fp4_lo(byte)), 1.0f);
  EXPECT_EQ(e2m1_to_float(fp4_hi(byte)), 6.0f);
  const __half2_raw pair = __nv_cvt_fp4x2_to_halfraw2(static_cast<__nv_fp4x2_storage_t>(byte), __NV_E2M1);
  EXPECT_EQ(__half2float(__half(__half_raw{pair.x})), 1.0f);
  EXPECT_EQ(__half2float(__half(__half_raw{pair.y})), 6.0f);
}

TEST(E4m3, AllCodesMatchCudaFp8HostConversion) {
  for (unsigned c = 0; c < 256; ++c) {
    const float ref = __half2float(__half(__nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(c), __NV_E4M3)));
    const float got = e4m3_to_float(static_cast<uint8_t>(c));
    if (std::isnan(ref)) {
      EXPECT_TRUE(std::isnan(got)) << "code " << c;
      EXPECT_TRUE(e4m3_is_nan(static_cast<uint8_t>(c)));
    } else {
      EXPECT_EQ(got, ref) << "code " << c;
      EXPECT_FALSE(e4m3_is_nan(static_cast<uint8_t>(c)));
    }
  }
}

TEST(E4m3, Landmarks) {
  EXPECT_EQ(e4m3_to_float(0x7E), 448.0f);            // max
  EXPECT_EQ(e4m3_to_float(0x01), 1.0f / 512.0f);     // min subnormal 2^-9
  EXPECT_EQ(e4m3_to_float(0x08), 1.0f / 64.0f);      // min normal 2^-6
  EXPECT_EQ(e4m3_to_float(0x38), 1.0f);
  EXPECT_TRUE(std::isnan(e4m3_to_float(0x7F)));
  EXPECT_TRUE(std::isnan(e4m3_to_float(0xFF)));
}

TEST(Exactness, ScaledElementIsExactInFp16) {
  // HARDWARE.md: every e2m1 * e4m3 product is representable in FP16.
  for (unsigned a = 0; a < 16; ++a)
    for (unsigned s = 0; s < 256; ++s) {
      if (e4m3_is_nan(static_cast<uint8_t>(s))) continue;
      const float v = e2m1_to_float(a) * e4m3_to_float(static_cast<uint8_t>(s));
      EXPECT_EQ(__half2float(__float2half_rn(v)), v) << a << " * " << s;
    }
}
