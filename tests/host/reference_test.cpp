// SPDX-License-Identifier: Apache-2.0
// The FP64 host reference on hand-computed cases.
#include <gtest/gtest.h>

#include <cmath>

#include "reference/reference.hpp"

using namespace nvfp4;

namespace {

// rows x k operand with every element code `code` and every scale `sf`.
HostFp4Matrix filled(int64_t rows, int64_t k, int64_t l, uint8_t code, uint8_t sf) {
  HostFp4Matrix m;
  m.rows = rows;
  m.k = k;
  m.l = l;
  m.data.assign(static_cast<size_t>(rows * k / 2 * l), static_cast<uint8_t>(code | (code << 4)));
  m.sf.assign(static_cast<size_t>(rows * k / 16 * l), sf);
  return m;
}

float h(const __half& x) { return __half2float(x); }

}  // namespace

TEST(HostReference, OneBlockAllOnes) {
  // 16 products of 1.0*1.0 with unit scales: 16.
  const Dims d{1, 1, 16, 1};
  const auto out = host_reference(Problem::gemm, d, filled(1, 16, 1, 2, 0x38), filled(1, 16, 1, 2, 0x38), nullptr);
  EXPECT_EQ(h(out[0]), 16.0f);
}

TEST(HostReference, ScalesAndSigns) {
  // A = 1.5 (code 3) scale 2 (0x40); B = -6 (code 15) scale 0.5 (0x30); K = 32:
  // 32 * (1.5*2) * (-6*0.5) = -288.
  const Dims d{2, 3, 32, 1};
  const auto out = host_reference(Problem::gemm, d, filled(2, 32, 1, 3, 0x40), filled(3, 32, 1, 15, 0x30), nullptr);
  ASSERT_EQ(out.size(), 6u);
  for (const auto& v : out) EXPECT_EQ(h(v), -288.0f);
}

TEST(HostReference, NegativeZeroAndZeroScale) {
  const Dims d{1, 1, 16, 1};
  EXPECT_EQ(h(host_reference(Problem::gemm, d, filled(1, 16, 1, 8, 0x38), filled(1, 16, 1, 7, 0x38), nullptr)[0]), 0.0f);
  EXPECT_EQ(h(host_reference(Problem::gemm, d, filled(1, 16, 1, 7, 0x00), filled(1, 16, 1, 7, 0x38), nullptr)[0]), 0.0f);
}

TEST(HostReference, PerBlockScalesAndOddElements) {
  // K = 32: block 0 scale 1, block 1 scale 4 on A; element k=1 (high nibble) set to 6, others 0.
  HostFp4Matrix a = filled(1, 32, 1, 0, 0x38), b = filled(1, 32, 1, 2, 0x38);
  a.data[0] = 0x70;   // k=0 -> 0, k=1 -> 6
  a.data[8] = 0x05;   // k=16 -> 3, k=17 -> 0
  a.sf[1] = 0x48;     // 4.0
  const auto out = host_reference(Problem::gemm, Dims{1, 1, 32, 1}, a, b, nullptr);
  EXPECT_EQ(h(out[0]), 6.0f + 3.0f * 4.0f);
}

TEST(HostReference, BatchesAreIndependent) {
  HostFp4Matrix a = filled(1, 16, 2, 2, 0x38), b = filled(1, 16, 2, 2, 0x38);
  a.sf[1] = 0x40;  // batch 1 scale 2
  const auto out = host_reference(Problem::gemm, Dims{1, 1, 16, 2}, a, b, nullptr);
  EXPECT_EQ(h(out[0]), 16.0f);
  EXPECT_EQ(h(out[1]), 32.0f);
}

TEST(HostReference, DualGemmSiluProduct) {
  // gate = 16 * 0.5 = 8 ... A=1, B1=0.5, B2=1 over K=16: silu(8) * 16.
  const Dims d{1, 1, 16, 1};
  const HostFp4Matrix b2 = filled(1, 16, 1, 2, 0x38);
  const auto out = host_reference(Problem::dual_gemm, d, filled(1, 16, 1, 2, 0x38), filled(1, 16, 1, 1, 0x38), &b2);
  const double want = 8.0 / (1.0 + std::exp(-8.0)) * 16.0;
  EXPECT_EQ(h(out[0]), __half2float(__double2half(want)));
}

TEST(HostReference, GemvUsesRowZeroOfPaddedB) {
  HostFp4Matrix b = filled(128, 16, 1, 0, 0x38);
  for (int i = 0; i < 8; ++i) b.data[static_cast<size_t>(i)] = 0x22;  // row 0 all 1.0
  const auto out = host_reference(Problem::gemv, Dims{3, 1, 16, 1}, filled(3, 16, 1, 3, 0x38), b, nullptr);
  for (const auto& v : out) EXPECT_EQ(h(v), 24.0f);
}
