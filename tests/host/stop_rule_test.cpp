// SPDX-License-Identifier: Apache-2.0
// stop_rule_test.cpp: when sampling ends (measure/stop_rule.hpp), with and without outliers.
#include <gtest/gtest.h>

#include <vector>

#include "measure/stop_rule.hpp"

using namespace nvfp4;

namespace {

TimingOptions options() {
  TimingOptions o;
  o.min_samples = 10;
  o.max_samples = 40;
  o.min_time_s = 0.1;
  o.max_time_s = 2.0;
  o.target_rse = 0.001;
  return o;
}

std::vector<double> steady(int n) { return std::vector<double>(static_cast<size_t>(n), 50.0); }

}  // namespace

TEST(StopRule, WithoutOutliersGpuModesRule) {
  const TimingOptions o = options();
  EXPECT_FALSE(check_stop(steady(9), 1.0, o).stop);  // fewer than min_samples
  EXPECT_FALSE(check_stop(steady(10), 0.05, o).stop);  // before min_time
  const StopCheck rse = check_stop(steady(10), 0.2, o);
  EXPECT_TRUE(rse.stop);
  EXPECT_EQ(rse.reason, "rse");
  EXPECT_EQ(check_stop(steady(5), 2.0, o).reason, "time budget");
  EXPECT_EQ(check_stop(steady(40), 0.01, o).reason, "max samples");
}

TEST(StopRule, AnOutlierEarnsExtraSamples) {
  const TimingOptions o = options();
  std::vector<double> v = steady(10);
  v[3] = 500.0;  // one outlier: RSE of all samples is large, of the clean ones 0
  StopCheck c = check_stop(v, 0.2, o);
  EXPECT_FALSE(c.stop);
  EXPECT_TRUE(c.held_by_outliers);  // the clean RSE is met; min_samples + 1 clean samples are not
  v.push_back(50.0);
  EXPECT_FALSE(check_stop(v, 0.2, o).stop);  // 10 clean
  v.push_back(50.0);
  c = check_stop(v, 0.2, o);  // 11 clean = min_samples + 1 outlier
  EXPECT_TRUE(c.stop);
  EXPECT_EQ(c.reason, "rse");
}

TEST(StopRule, MaxSamplesCountsCleanSamplesUpToTwice) {
  const TimingOptions o = options();
  std::vector<double> v = steady(40);
  for (int i = 0; i < 5; ++i) v[static_cast<size_t>(2 + 3 * i)] = 400.0;
  StopCheck c = check_stop(v, 0.01, o);
  EXPECT_FALSE(c.stop);
  EXPECT_TRUE(c.held_by_outliers);
  v.resize(45, 50.0);  // 40 clean
  EXPECT_EQ(check_stop(v, 0.01, o).reason, "max samples");
  // Never more than 2 * max_samples, whatever the outliers.
  std::vector<double> bad;
  for (int i = 0; i < 80; ++i) bad.push_back(i % 2 ? 50.0 : 50.0 + i * 40.0);
  EXPECT_EQ(check_stop(bad, 0.01, o).reason, "max samples");
  // And never past the time budget.
  bad.resize(50);
  EXPECT_EQ(check_stop(bad, 2.5, o).reason, "time budget");
}
