// SPDX-License-Identifier: Apache-2.0
// The sampling loop's throttle rule (measure/nvml.hpp sample_throttled): the 90 % clock test, the
// NVML reasons that lower clocks under load, and the ones that do not.
#include <gtest/gtest.h>

#include "measure/nvml.hpp"

using namespace nvfp4;

namespace {
ClockSample at(int sm_mhz, uint64_t reasons = 0) {
  ClockSample c;
  c.sm_mhz = sm_mhz;
  c.throttle_reasons = reasons;
  return c;
}
}  // namespace

TEST(ClockRule, NinetyPercentOfTheReference) {
  EXPECT_FALSE(sample_throttled(at(1980), 1980));
  EXPECT_FALSE(sample_throttled(at(1785), 1980)) << "90.2 %: not by the clock alone";
  EXPECT_TRUE(sample_throttled(at(1665), 1980));
  EXPECT_FALSE(sample_throttled(at(1000), -1)) << "reference unknown: the clock part is skipped";
  EXPECT_FALSE(sample_throttled(at(-1), 1980)) << "clock unread";
}

TEST(ClockRule, ClockLoweringReasons) {
  // P190: SwPowerCap (0x4) at 1785-1965 MHz slowed a tensor-core loop by ~11 %.
  EXPECT_TRUE(sample_throttled(at(1965, 0x4), 1980));
  EXPECT_TRUE(sample_throttled(at(1980, 0x40), 1980)) << "HwThermalSlowdown";
  EXPECT_TRUE(sample_throttled(at(1980, 0x80), 1980)) << "HwPowerBrakeSlowdown";
  EXPECT_TRUE(sample_throttled(at(1980, 0x4), -1)) << "a reason counts without a reference clock";
  // GpuIdle, ApplicationsClocksSetting, DisplayClockSetting do not lower clocks under load.
  EXPECT_FALSE(sample_throttled(at(1980, 0x1 | 0x2 | 0x100), 1980));
}
