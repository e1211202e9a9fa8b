// SPDX-License-Identifier: Apache-2.0
// divisor_test.cpp: Divisor (kernels/common/divisor.hpp), the multiply-and-shift division the GEMM
// schedulers run on the device, against the compiler's division: every dividend below 2^16 for
// every divisor up to 2^12, the dividends next to each multiple and to 2^31 for divisors up to
// 2^31 - 1, and the split_k_begin cut both ways.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "../../kernels/common/stream_k.hpp"

namespace nvfp4::gemm {
namespace {

void expect_exact(int d, int n) {
  const Divisor v(d);
  ASSERT_EQ(v.div(n), n / d) << n << " / " << d;
  ASSERT_EQ(v.mod(n), n % d) << n << " % " << d;
}

TEST(Divisor, SmallDivisorsEveryDividend) {
  for (int d = 1; d <= 4096; ++d)
    for (int n = 0; n < (1 << 16); n += (d < 64 ? 1 : 7)) expect_exact(d, n);
}

TEST(Divisor, EdgesUpToTwoToThe31) {
  std::vector<int> divisors = {1, 2, 3, 5, 7, 56, 100, 127, 128, 129, 641, 6700417, (1 << 30) - 1, 1 << 30,
                               (1 << 30) + 1, INT32_MAX - 1, INT32_MAX};
  std::mt19937 rng(53);
  for (int i = 0; i < 2000; ++i) divisors.push_back(static_cast<int>(rng() % INT32_MAX) + 1);
  for (int d : divisors) {
    for (int n : {0, 1, d - 1, INT32_MAX, INT32_MAX - 1, INT32_MAX - d + 1}) {
      if (n >= 0) expect_exact(d, n);
    }
    for (int q : {1, 2, 3, 1000, 65535}) {
      const int64_t m = int64_t{q} * d;
      for (int64_t n : {m - 1, m, m + 1})
        if (n >= 0 && n <= INT32_MAX) expect_exact(d, static_cast<int>(n));
    }
    for (int i = 0; i < 50; ++i) expect_exact(d, static_cast<int>(rng() % (uint64_t{INT32_MAX} + 1)));
  }
}

TEST(Divisor, ReadsAsItsValue) {
  const Divisor v(7);
  EXPECT_EQ(static_cast<int>(v), 7);
  EXPECT_EQ(3 * v, 21);
  EXPECT_EQ(static_cast<int>(Divisor()), 1);
}

TEST(Divisor, SplitKBeginTheSameCut) {
  for (int splits = 1; splits <= 16; ++splits)
    for (int k_steps = 1; k_steps <= 2048; ++k_steps)
      for (int s = 0; s <= splits; ++s)
        ASSERT_EQ(split_k_begin(k_steps, s, Divisor(splits)), split_k_begin(k_steps, s, splits));
}

}  // namespace
}  // namespace nvfp4::gemm
