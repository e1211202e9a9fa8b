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

// ---- robust spread and outliers (measure/stats.hpp) ----

TEST(Stats, RobustNoiseIgnoresOneStraySample) {
  std::vector<double> v;
  for (int i = 0; i < 20; ++i) v.push_back(32.0 + 0.1 * (i % 5 - 2));  // 31.8 .. 32.2
  const SampleStats clean = summarize(v);
  v[7] = 228.0;  // the report: one sample 7x the median
  const SampleStats s = summarize(v);
  EXPECT_GT(s.noise, 1.0);                      // stddev / mean is blown up
  EXPECT_LT(s.robust_noise, 0.01);              // 1.4826 * MAD / median is not
  EXPECT_NEAR(s.robust_noise, clean.robust_noise, 0.002);
  EXPECT_EQ(s.outliers, 1);
  EXPECT_EQ(clean.outliers, 0);
  EXPECT_EQ(without_outliers(v).size(), 19u);
}

TEST(Stats, RobustNoiseOfKnownSamples) {
  // median 6, |x - 6| = {2, 4, 2, 0, 4} -> MAD 2, sigma 1.4826 * 2.
  const SampleStats s = summarize({4, 2, 8, 6, 10});
  EXPECT_DOUBLE_EQ(s.robust_noise, kMadToSigma * 2 / 6);
  EXPECT_EQ(s.outliers, 0);
}

TEST(Stats, EqualSamplesAndATimerTickAreNotOutliers) {
  // MAD 0: the 1 % floor keeps a sample one tick away from counting.
  std::vector<double> v(30, 20.0);
  v[4] = 20.1;
  EXPECT_EQ(summarize(v).outliers, 0);
  v[5] = 25.0;
  EXPECT_EQ(summarize(v).outliers, 1);
}

TEST(Stats, ManyOutliersAreCountedWhileTheyAreAMinority) {
  std::vector<double> v;
  for (int i = 0; i < 14; ++i) v.push_back(100.0 + (i % 3));
  for (int i = 0; i < 6; ++i) v.push_back(300.0);
  const SampleStats s = summarize(v);
  EXPECT_EQ(s.outliers, 6);
  EXPECT_LT(s.robust_noise, 0.03);  // the spread of the 14, not of the 300s
}
