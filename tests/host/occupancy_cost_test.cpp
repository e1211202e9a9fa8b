// SPDX-License-Identifier: Apache-2.0
// occupancy_cost_test.cpp: the data-parallel time model of launches whose CTAs may share an SM
// (kernels/common/occupancy_cost.hpp, `tensor-core`'s split choice): lone rate only when every CTA
// fits one per SM, round robin at the shared rate beyond one wave.
#include <gtest/gtest.h>

#include <vector>

#include "../../kernels/common/occupancy_cost.hpp"

namespace nvfp4::gemm {
namespace {

std::vector<double> uniform(int n, double s) { return std::vector<double>(static_cast<size_t>(n), s); }

TEST(OccupancyCost, OneWave) {
  // 112 units fit one per SM (lone capacity 132): lone rate; 224 do not: shared rate.
  EXPECT_DOUBLE_EQ(occupancy_cost(uniform(112, 16), 132, 264, 0.5), 8.0);
  EXPECT_DOUBLE_EQ(occupancy_cost(uniform(224, 8), 132, 264, 0.5), 8.0);
  // One unit over the lone capacity puts two CTAs on an SM: the whole launch at the shared rate.
  EXPECT_DOUBLE_EQ(occupancy_cost(uniform(125, 28), 124, 248, 0.5), 28.0);
  EXPECT_DOUBLE_EQ(occupancy_cost(uniform(124, 28), 124, 248, 0.5), 14.0);
}

TEST(OccupancyCost, WavesAtTheSharedRate) {
  // 384 units on 264 slots: two units for the busiest CTA, shared rate (the lone last wave is not credited).
  EXPECT_DOUBLE_EQ(occupancy_cost(uniform(384, 56), 132, 264, 0.5), 112.0);
  EXPECT_DOUBLE_EQ(occupancy_cost(uniform(528, 10), 132, 264, 0.5), 20.0);
  EXPECT_DOUBLE_EQ(occupancy_cost(uniform(529, 10), 132, 264, 0.5), 30.0);
}

TEST(OccupancyCost, UnequalUnitsRoundRobin) {
  std::vector<double> s = uniform(6, 1);
  s[0] = 5;  // CTA 0 of 4 takes units 0 and 4
  EXPECT_DOUBLE_EQ(occupancy_cost(s, 2, 4, 0.5), 6.0);
  EXPECT_DOUBLE_EQ(occupancy_cost(s, 8, 8, 0.5), 2.5);  // one wave, one per SM
  EXPECT_DOUBLE_EQ(occupancy_cost({}, 8, 8, 0.5), 0.0);
}

}  // namespace
}  // namespace nvfp4::gemm
