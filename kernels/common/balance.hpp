// SPDX-License-Identifier: Apache-2.0
// balance.hpp: the order in which a data-parallel persistent launch hands out units of unequal
// cost (host only, no CUDA). CTA b of `blocks` runs the units order[b], order[b + blocks], ...,
// the stride form of every data-parallel launch, so CTA b runs ceil((units - b) / blocks) units;
// balanced_order picks which units those are so that the busiest CTA's total cost is small.
// group_gemm `persistent` uses it where a group's last 128-token tile runs on a narrower wgmma and
// so costs less than a full one (docs/perf-notes.md P62, P63).
#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

namespace nvfp4::gemm {

struct Balanced {
  std::vector<int> order;  // order[j * blocks + b]: CTA b's j-th unit
  double busiest = 0;      // the largest per-CTA cost sum
};

// Round by round (round j: the CTAs that run a j-th unit), the costliest units not yet placed go
// to the CTAs with the least cost so far, the costliest unit to the least loaded CTA (ties: units
// in their original order, CTAs by index, so equal costs keep round-robin's order and the
// neighbouring tiles that share weights run at the same time). CTAs are then numbered by their
// unit count (most first), as the stride form needs.
inline Balanced balanced_order(const std::vector<double>& cost, int blocks) {
  const int units = static_cast<int>(cost.size());
  Balanced r;
  if (units == 0 || blocks <= 0) return r;
  blocks = std::min(blocks, units);
  std::vector<int> by_cost(static_cast<size_t>(units));
  std::iota(by_cost.begin(), by_cost.end(), 0);
  std::stable_sort(by_cost.begin(), by_cost.end(), [&](int a, int b) { return cost[a] > cost[b]; });
  std::vector<double> load(static_cast<size_t>(blocks), 0.0);
  std::vector<std::vector<int>> runs(static_cast<size_t>(blocks));
  std::vector<int> ctas(static_cast<size_t>(blocks));
  // Every round but the last gives each CTA one unit, so at a round's start all CTAs have run
  // the same number of units and the round's CTAs are simply the least loaded ones.
  for (size_t next = 0; next < by_cost.size();) {
    const int in_round = static_cast<int>(std::min(by_cost.size() - next, static_cast<size_t>(blocks)));
    std::iota(ctas.begin(), ctas.end(), 0);
    std::stable_sort(ctas.begin(), ctas.end(), [&](int a, int b) { return load[a] < load[b]; });
    for (int i = 0; i < in_round; ++i) {
      const int c = ctas[static_cast<size_t>(i)], u = by_cost[next++];
      runs[c].push_back(u);
      load[c] += cost[u];
    }
  }
  // Number the CTAs by unit count (most first; stable, so the first round's order stays).
  std::vector<int> rank(static_cast<size_t>(blocks));
  std::iota(rank.begin(), rank.end(), 0);
  std::stable_sort(rank.begin(), rank.end(), [&](int a, int b) { return runs[a].size() > runs[b].size(); });
  r.order.assign(static_cast<size_t>(units), -1);
  for (int b = 0; b < blocks; ++b) {
    const std::vector<int>& run = runs[rank[b]];
    for (size_t j = 0; j < run.size(); ++j) r.order[j * blocks + b] = run[j];
    r.busiest = std::max(r.busiest, load[rank[b]]);
  }
  return r;
}

// The busiest CTA's cost sum when CTA b takes units b, b + blocks, ... in their own order.
inline double round_robin_busiest(const std::vector<double>& cost, int blocks) {
  if (blocks <= 0) return 0;
  std::vector<double> load(static_cast<size_t>(blocks), 0.0);
  for (size_t u = 0; u < cost.size(); ++u) load[u % static_cast<size_t>(blocks)] += cost[u];
  return *std::max_element(load.begin(), load.end());
}

}  // namespace nvfp4::gemm
