// SPDX-License-Identifier: Apache-2.0
// balance_test.cpp: the cost-balanced unit order of data-parallel `persistent` launches
// (kernels/common/balance.hpp): every unit runs exactly once, a CTA's units come before its -1
// entries (the padded stride form the kernels stop at), equal costs keep round-robin's order, the
// busiest CTA is never busier than under round-robin (and strictly less busy on the group_gemm
// benchmark cases' shapes), and with a per-unit cost CTAs may run different numbers of units.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "../../kernels/common/balance.hpp"

namespace nvfp4::gemm {
namespace {

// CTA b's cost sum under `order`, each CTA running order[b], order[b + blocks], ... up to its
// first -1, each unit costing cost + extra.
std::vector<double> loads(const std::vector<int>& order, const std::vector<double>& cost, int blocks,
                          double extra = 0.0) {
  std::vector<double> load(static_cast<size_t>(blocks), 0.0);
  std::vector<bool> done(static_cast<size_t>(blocks), false);
  for (size_t i = 0; i < order.size(); ++i) {
    const size_t b = i % static_cast<size_t>(blocks);
    if (order[i] < 0) done[b] = true;
    if (done[b]) continue;
    load[b] += cost[static_cast<size_t>(order[i])] + extra;
  }
  return load;
}

void expect_valid(const Balanced& b, const std::vector<double>& cost, int blocks, double extra = 0.0) {
  const int ctas = std::min<int>(blocks, static_cast<int>(cost.size()));
  ASSERT_GE(b.order.size(), cost.size());
  std::vector<int> seen(cost.size(), 0);
  std::vector<bool> ended(static_cast<size_t>(ctas), false);
  for (size_t i = 0; i < b.order.size(); ++i) {
    const int u = b.order[i];
    const size_t cta = i % static_cast<size_t>(ctas);
    if (u < 0) {
      ended[cta] = true;
      continue;
    }
    ASSERT_FALSE(ended[cta]) << "a unit after CTA " << cta << "'s -1";
    ASSERT_LT(u, static_cast<int>(cost.size()));
    ++seen[static_cast<size_t>(u)];
  }
  for (int n : seen) EXPECT_EQ(n, 1);
  const std::vector<double> load = loads(b.order, cost, ctas, extra);
  EXPECT_NEAR(*std::max_element(load.begin(), load.end()), b.busiest, 1e-9);
  EXPECT_LE(b.busiest, round_robin_busiest(cost, blocks, extra) + 1e-9);
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
  ASSERT_EQ(b.order.size(), cost.size());
  for (size_t i = 0; i < b.order.size(); ++i) EXPECT_GE(b.order[i], 0);
}

// Without a per-unit cost the answer is round by round's, whatever the costs.
TEST(Balance, NoExtraKeepsRounds) {
  const std::vector<double> cost = {9, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  const Balanced b = balanced_order(cost, 3);
  expect_valid(b, cost, 3);
  ASSERT_EQ(b.order.size(), cost.size());  // 4 / 3 / 3 units: no -1 entries
  for (int u : b.order) EXPECT_GE(u, 0);
}

// One dear unit and many cheap ones on 3 CTAs: round by round gives every CTA 4 or 3 units (the
// dear one's CTA 9 + 3 + extras), free counts leave the dear unit alone.
TEST(Balance, FreeCountsLeaveADearUnitAlone) {
  const std::vector<double> cost = {9, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  const double extra = 0.5;
  const Balanced b = balanced_order(cost, 3, extra);
  expect_valid(b, cost, 3, extra);
  EXPECT_DOUBLE_EQ(b.busiest, 9.5);  // {9}, {1 x 5}: 7.5, {1 x 4}: 6
  // CTA 0 runs 5 units, CTA 1 four, CTA 2 (the dear one) one: slots 2, 5, 8 and 11 are -1.
  int minus = 0;
  for (int u : b.order) minus += u < 0 ? 1 : 0;
  EXPECT_GT(minus, 0);
}

// group_gemm G=8, M=[40,76,168,72,164,148,196,160], N=7168, K=2048 as 256-token tiles (one per
// group and weight tile, 56 weight tiles): each tile's cost by its wgmma width as P81's trace
// priced it, 5 steps per unit on top. Free counts beat round by round (busiest 62.4 -> ~56 us in
// the trace's prices).
TEST(Balance, GroupBenchmarkShapeFreeCounts) {
  const int ms[] = {40, 76, 168, 72, 164, 148, 196, 160};
  const double price[] = {0.445, 0.517, 0.592, 0.631, 0.77, 0.943, 1.0};  // width 64, 96, ..., 256
  std::vector<double> cost;
  for (int m : ms)
    for (int n = 0; n < 56; ++n) cost.push_back(32 * price[std::max(64, (m + 31) / 32 * 32) / 32 - 2]);
  ASSERT_EQ(cost.size(), 448u);
  const double extra = 5.0;
  const Balanced rounds = balanced_order(cost, 132);  // round by round (extra 0)
  const Balanced b = balanced_order(cost, 132, extra);
  expect_valid(b, cost, 132, extra);
  const std::vector<double> by_rounds = loads(rounds.order, cost, 132, extra);
  EXPECT_LT(b.busiest, *std::max_element(by_rounds.begin(), by_rounds.end()) - 2.0);
}

// The device order's codes: each unit with its group (by the groups' first units), -1 kept; a
// group of no units (first unit equal to the next group's) owns none of them.
TEST(Balance, OrderCodesCarryTheGroup) {
  const std::vector<int> order = {5, 0, 9, -1, 3, 4, 8, -1};
  const std::vector<int64_t> first_unit = {0, 3, 3, 8};  // groups 0: 0-2, 1: none, 2: 3-7, 3: 8-
  const std::vector<int> coded = order_codes(order, first_unit);
  ASSERT_EQ(coded.size(), order.size());
  const int want_group[] = {2, 0, 3, -1, 2, 2, 3, -1};
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i] < 0) {
      EXPECT_EQ(coded[i], -1);
      continue;
    }
    EXPECT_EQ(coded[i] >> kOrderGroupShift, want_group[i]) << i;
    EXPECT_EQ(coded[i] & ((1 << kOrderGroupShift) - 1), order[i]) << i;
    EXPECT_EQ(order_group(coded[i]), want_group[i]) << i;  // what the device reads
    EXPECT_EQ(order_unit(coded[i]), order[i]) << i;
  }
  EXPECT_TRUE(order_fits(128, int64_t{1} << kOrderGroupShift));
  EXPECT_FALSE(order_fits(129, 10));
  EXPECT_FALSE(order_fits(8, (int64_t{1} << kOrderGroupShift) + 1));
}

// Cut units (P125): a part's code round-trips its group, unit, cut and role, stays below -1
// (so -1 still ends a CTA's run), and whole units keep their order_code.
TEST(Balance, PartCodesRoundTrip) {
  for (const bool writer : {false, true})
    for (const int g : {0, 1, 15})
      for (const int u : {0, 7, 4095})
        for (const int cut : {1, 56, 8191}) {
          const int c = part_code(g, u, cut, writer);
          EXPECT_LT(c, -1);
          EXPECT_TRUE(is_part(c));
          EXPECT_EQ(part_group(c), g);
          EXPECT_EQ(part_unit(c), u);
          EXPECT_EQ(part_cut(c), cut);
          EXPECT_EQ(part_writer(c), writer);
        }
  EXPECT_FALSE(is_part(-1));
  EXPECT_FALSE(is_part(order_code(15, 4095)));
  EXPECT_TRUE(parts_fit(16, 4096, 8191));
  EXPECT_FALSE(parts_fit(17, 10, 100));
  EXPECT_FALSE(parts_fit(8, 4097, 100));
  EXPECT_FALSE(parts_fit(8, 10, 8192));
}

// Replays a wrapped order as the kernel reads it: every K step of every unit runs exactly once;
// each cut unit's writer part [0, cut) is the first piece of CTA b + 1 and its adder part
// [cut, steps) the last piece of CTA b; no piece is shorter than min_part; the busiest CTA's
// model cost is wrapped's. Returns the number of cuts seen.
int expect_valid_wrap(const Wrapped& w, const std::vector<int>& steps, const std::vector<double>& price, int blocks,
                      double extra, double writer, double adder, int min_part) {
  const std::vector<int64_t> first_unit = {0};
  const std::vector<int> order = wrapped_codes(w, blocks, first_unit);
  std::vector<std::vector<int>> covered(steps.size());
  for (size_t u = 0; u < steps.size(); ++u) covered[u].assign(static_cast<size_t>(steps[u]), 0);
  std::vector<std::vector<int>> runs(static_cast<size_t>(blocks));
  for (int b = 0; b < blocks; ++b)
    for (size_t i = static_cast<size_t>(b); i < order.size() && order[i] != -1; i += static_cast<size_t>(blocks))
      runs[static_cast<size_t>(b)].push_back(order[i]);
  int cuts = 0;
  double busiest = 0;
  for (int b = 0; b < blocks; ++b) {
    const std::vector<int>& run = runs[static_cast<size_t>(b)];
    double load = 0;
    for (size_t j = 0; j < run.size(); ++j) {
      const int c = run[j];
      const int u = is_part(c) ? part_unit(c) : order_unit(c);
      const int s = steps[static_cast<size_t>(u)];
      int k0 = 0, k1 = s;
      if (is_part(c)) {
        (part_writer(c) ? k1 : k0) = part_cut(c);
        EXPECT_GE(k1 - k0, min_part);
        if (part_writer(c)) {
          EXPECT_EQ(j, 0u) << "a writer opens its CTA";
          EXPECT_GE(b, 1);
          EXPECT_TRUE(b >= 1 && !runs[static_cast<size_t>(b - 1)].empty() &&
                      runs[static_cast<size_t>(b - 1)].back() == part_code(0, u, part_cut(c), false))
              << "its adder closes the CTA before";
          ++cuts;
        } else {
          EXPECT_EQ(j + 1, run.size()) << "an adder closes its CTA";
          // In the model its writer (CTA b + 1's first piece) has ended before it starts.
          EXPECT_LE(part_cut(c) * price[static_cast<size_t>(u)] + extra + writer, load + 1e-9);
        }
        load += (is_part(c) && part_writer(c)) ? writer : adder;
      }
      load += (k1 - k0) * price[static_cast<size_t>(u)] + extra;
      for (int k = k0; k < k1; ++k) ++covered[static_cast<size_t>(u)][static_cast<size_t>(k)];
    }
    busiest = std::max(busiest, load);
  }
  for (size_t u = 0; u < steps.size(); ++u)
    for (int k = 0; k < steps[u]; ++k) EXPECT_EQ(covered[u][static_cast<size_t>(k)], 1) << "unit " << u << " step " << k;
  EXPECT_NEAR(busiest, w.busiest, 1e-6);
  EXPECT_EQ(cuts, w.cuts);
  return cuts;
}

// group_gemm G=8 N=4096 K=7168 in 2 x 256 (its widths' kWideMixedStep prices, 5 steps per unit, a
// writer 3 and an adder 2 more): the wrap cuts units and its busiest CTA is below what free counts
// give (171.8 steps); a case whose units are all equal and fill the CTAs evenly cuts none.
TEST(Balance, WrappedPartsCoverEveryStepOnce) {
  const double mixed[] = {0.517, 0.77, 0.592, 0.517, 0.445, 1.0, 0.517, 0.631};
  std::vector<int> steps;
  std::vector<double> price, cost;
  for (double p : mixed)
    for (int t = 0; t < 32; ++t) {
      steps.push_back(112);
      price.push_back(p);
      cost.push_back(112 * p);
    }
  const Wrapped w = wrapped_parts(steps, price, 132, 5.0, 3.0, 2.0, 8);
  ASSERT_FALSE(w.runs.empty());
  EXPECT_GT(expect_valid_wrap(w, steps, price, 132, 5.0, 3.0, 2.0, 8), 0);
  EXPECT_LT(w.busiest, balanced_order(cost, 132, 5.0).busiest - 5.0);
  // Small K: parts would be shorter than min_part, so nothing is cut.
  const std::vector<int> short_steps(20, 12);
  const std::vector<double> short_price(20, 1.0);
  const Wrapped s = wrapped_parts(short_steps, short_price, 6, 1.0, 3.0, 2.0, 8);
  ASSERT_FALSE(s.runs.empty());
  EXPECT_EQ(expect_valid_wrap(s, short_steps, short_price, 6, 1.0, 3.0, 2.0, 8), 0);
  // Equal units, 2 per CTA: no cut.
  const std::vector<int> even_steps(16, 40);
  const std::vector<double> even_price(16, 1.0);
  const Wrapped e = wrapped_parts(even_steps, even_price, 8, 2.0, 3.0, 2.0, 8);
  EXPECT_EQ(expect_valid_wrap(e, even_steps, even_price, 8, 2.0, 3.0, 2.0, 8), 0);
  EXPECT_NEAR(e.busiest, 84.0, 1e-3);
}

}  // namespace
}  // namespace nvfp4::gemm
