// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <cmath>

#include "measure/stats.hpp"

using namespace nvfp4;

TEST(Stats, KnownSamples) {
  const SampleStats s = summarize({4, 2, 8, 6, 10});
  EXPECT_EQ(s.n, 5);
  EXPECT_DOUBLE_EQ(s.mean, 6);
  EXPECT_DOUBLE_EQ(s.median, 6);
  EXPECT_DOUBLE_EQ(s.min, 2);
  EXPECT_DOUBLE_EQ(s.max, 10);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(10.0));  // sum of squares 40 / (n - 1)
  EXPECT_DOUBLE_EQ(s.rse, std::sqrt(10.0) / std::sqrt(5.0) / 6);
  EXPECT_DOUBLE_EQ(s.noise, std::sqrt(10.0) / 6);
  EXPECT_DOUBLE_EQ(s.p10, 2.8);  // 2 + 0.4 * (4 - 2)
  EXPECT_DOUBLE_EQ(s.p90, 9.2);
}

TEST(Stats, EvenCountMedianInterpolates) { EXPECT_DOUBLE_EQ(summarize({1, 2, 3, 4}).median, 2.5); }

TEST(Stats, SingleAndEmpty) {
  const SampleStats one = summarize({3.5});
  EXPECT_EQ(one.n, 1);
  EXPECT_DOUBLE_EQ(one.median, 3.5);
  EXPECT_DOUBLE_EQ(one.stddev, 0);
  EXPECT_EQ(summarize({}).n, 0);
}

TEST(Stats, Geomean) {
  EXPECT_NEAR(geomean({1, 100}), 10, 1e-12);
  EXPECT_NEAR(geomean({8.622, 17.275, 4.317}), std::cbrt(8.622 * 17.275 * 4.317), 1e-12);
  EXPECT_EQ(geomean({}), 0);
}
