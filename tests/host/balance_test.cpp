// SPDX-License-Identifier: Apache-2.0
// balance_test.cpp: the cost-balanced unit order of data-parallel `persistent` launches
// (kernels/common/balance.hpp): every unit runs exactly once, CTA b runs as many units as the
// stride form gives it, equal costs keep round-robin's order, and the busiest CTA is never busier
// than under round-robin (and strictly less busy on the group_gemm benchmark case's shape).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "../../kernels/common/balance.hpp"

namespace nvfp4::gemm {
namespace {

// CTA b's cost sum under `order`, each CTA running order[b], order[b + blocks], ...
std::vector<double> loads(const std::vector<int>& order, const std::vector<double>& cost, int blocks) {
  std::vector<double> load(static_cast<size_t>(blocks), 0.0);
  for (size_t i = 0; i < order.size(); ++i) load[i % blocks] += cost[static_cast<size_t>(order[i])];
  return load;
}

void expect_valid(const Balanced& b, const std::vector<double>& cost, int blocks) {
  ASSERT_EQ(b.order.size(), cost.size());
  std::vector<int> seen(cost.size(), 0);
  for (int u : b.order) {
    ASSERT_GE(u, 0);
    ASSERT_LT(u, static_cast<int>(cost.size()));
    ++seen[static_cast<size_t>(u)];
  }
  for (int n : seen) EXPECT_EQ(n, 1);
  const std::vector<double> load = loads(b.order, cost, std::min<int>(blocks, static_cast<int>(cost.size())));
  EXPECT_DOUBLE_EQ(*std::max_element(load.begin(), load.end()), b.busiest);
  EXPECT_LE(b.busiest, round_robin_busiest(cost, blocks) + 1e-9);
}

TEST(Balance, EqualCostsKeepRoundRobin) {
  const std::vector<double> cost(10, 3.0);
  const Balanced b = balanced_order(cost, 4);
  expect_valid(b, cost, 4);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(b.order[static_cast<size_t>(i)], i);
  EXPECT_DOUBLE_EQ(b.busiest, 9.0);
}

TEST(Balance, PairsCheapWithDear) {
  // Round-robin on 2 CTAs puts both dear units on CTA 0 (2.0 against 1.2).
  const std::vector<double> cost = {1.0, 0.6, 1.0, 0.6};
  EXPECT_DOUBLE_EQ(round_robin_busiest(cost, 2), 2.0);
  const Balanced b = balanced_order(cost, 2);
  expect_valid(b, cost, 2);
  EXPECT_DOUBLE_EQ(b.busiest, 1.6);
}

TEST(Balance, FewerUnitsThanCtas) {
  const std::vector<double> cost = {0.5, 1.0, 0.7};
  const Balanced b = balanced_order(cost, 8);
  expect_valid(b, cost, 8);
  EXPECT_DOUBLE_EQ(b.busiest, 1.0);
}

// group_gemm G=8, M=[80,176,128,72,64,248,96,160], N=4096 as 2 x 128 tiles: per group, 32 weight
// tiles x its token tiles (token tile fastest); a full tile 1, one of 64 live tokens 0.6, of 96 0.8.
TEST(Balance, GroupBenchmarkShape) {
  const int ms[] = {80, 176, 128, 72, 64, 248, 96, 160};
  std::vector<double> cost;
  for (int m : ms)
    for (int n = 0; n < 32; ++n)
      for (int m0 = 0; m0 < m; m0 += 128) {
        const int live = std::min(128, m - m0);
        cost.push_back(live <= 64 ? 0.6 : live <= 96 ? 0.8 : 1.0);
      }
  ASSERT_EQ(cost.size(), 352u);
  const Balanced b = balanced_order(cost, 132);
  expect_valid(b, cost, 132);
  EXPECT_LT(b.busiest, round_robin_busiest(cost, 132) - 0.1);
  // The stride form: CTAs 0..87 run 3 units, 88..131 run 2 (the last round's order entries exist).
  for (size_t i = 0; i < b.order.size(); ++i) EXPECT_GE(b.order[i], 0);
}

}  // namespace
}  // namespace nvfp4::gemm
