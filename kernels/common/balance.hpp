// SPDX-License-Identifier: Apache-2.0
// balance.hpp: the order in which a data-parallel persistent launch hands out units of unequal
// cost (host only, no CUDA). CTA b of `blocks` runs the units order[b], order[b + blocks], ...
// up to the first entry that is -1 (or the end of `order`): the stride form of every
// data-parallel launch, padded where CTAs run different numbers of units. balanced_order picks
// which units share a CTA so that the busiest CTA's total cost is small.
// group_gemm `persistent` uses it where units differ in cost: a partly filled token tile runs on
// a narrower wgmma (docs/perf-notes.md P62, P63, P81).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <queue>
#include <utility>
#include <vector>

namespace nvfp4::gemm {

struct Balanced {
  std::vector<int> order;  // order[j * blocks + b]: CTA b's j-th unit, -1 past its last
  double busiest = 0;      // the largest per-CTA sum of cost + extra per unit
};

namespace detail {
// CTA runs -> the padded stride form (CTAs numbered by unit count, most first; stable).
inline Balanced to_order(const std::vector<std::vector<int>>& runs, const std::vector<double>& load) {
  const int blocks = static_cast<int>(runs.size());
  std::vector<int> rank(static_cast<size_t>(blocks));
  std::iota(rank.begin(), rank.end(), 0);
  std::stable_sort(rank.begin(), rank.end(), [&](int a, int b) { return runs[a].size() > runs[b].size(); });
  const size_t rounds = blocks == 0 ? 0 : runs[static_cast<size_t>(rank[0])].size();
  Balanced r;
  r.order.assign(rounds * static_cast<size_t>(blocks), -1);  // every unit is in some CTA's run
  for (int b = 0; b < blocks; ++b) {
    const std::vector<int>& run = runs[static_cast<size_t>(rank[static_cast<size_t>(b)])];
    for (size_t j = 0; j < run.size(); ++j) r.order[j * static_cast<size_t>(blocks) + static_cast<size_t>(b)] = run[j];
    r.busiest = std::max(r.busiest, load[static_cast<size_t>(rank[static_cast<size_t>(b)])]);
  }
  // Trailing -1s past the last CTA's last unit are not needed: the stride form stops at the end.
  while (!r.order.empty() && r.order.back() < 0) r.order.pop_back();
  return r;
}

// Round by round (round j: the CTAs that run a j-th unit), the costliest units not yet placed go
// to the CTAs with the least cost so far, the costliest unit to the least loaded CTA (ties: units
// in their original order, CTAs by index, so equal costs keep round-robin's order and the
// neighbouring tiles that share weights run at the same time). Every CTA but the last round's
// runs the same number of units, as in the plain stride form (no -1 entries).
inline Balanced by_rounds(const std::vector<double>& cost, int blocks, double extra) {
  const int units = static_cast<int>(cost.size());
  std::vector<int> by_cost(static_cast<size_t>(units));
  std::iota(by_cost.begin(), by_cost.end(), 0);
  std::stable_sort(by_cost.begin(), by_cost.end(), [&](int a, int b) { return cost[a] > cost[b]; });
  std::vector<double> load(static_cast<size_t>(blocks), 0.0);
  std::vector<std::vector<int>> runs(static_cast<size_t>(blocks));
  std::vector<int> ctas(static_cast<size_t>(blocks));
  for (size_t next = 0; next < by_cost.size();) {
    const int in_round = static_cast<int>(std::min(by_cost.size() - next, static_cast<size_t>(blocks)));
    std::iota(ctas.begin(), ctas.end(), 0);
    std::stable_sort(ctas.begin(), ctas.end(), [&](int a, int b) { return load[a] < load[b]; });
    for (int i = 0; i < in_round; ++i) {
      const int c = ctas[static_cast<size_t>(i)], u = by_cost[next++];
      runs[static_cast<size_t>(c)].push_back(u);
      load[static_cast<size_t>(c)] += cost[static_cast<size_t>(u)] + extra;
    }
  }
  return to_order(runs, load);
}

// Free counts: the costliest unit first to the least loaded CTA (LPT), then, while it lowers the
// busiest CTA, one of its units moved to another CTA or swapped for a cheaper one there. CTAs
// may then run different numbers of units (padded stride form). Each unit costs cost + extra
// (extra: what a unit costs its CTA beyond its K steps, its epilogue and the next unit's start).
inline Balanced free_counts(const std::vector<double>& cost, int blocks, double extra) {
  const int units = static_cast<int>(cost.size());
  std::vector<double> c(cost);
  for (double& x : c) x += extra;
  std::vector<int> by_cost(static_cast<size_t>(units));
  std::iota(by_cost.begin(), by_cost.end(), 0);
  std::stable_sort(by_cost.begin(), by_cost.end(), [&](int a, int b) { return c[a] > c[b]; });
  std::vector<double> load(static_cast<size_t>(blocks), 0.0);
  std::vector<std::vector<int>> runs(static_cast<size_t>(blocks));
  using Slot = std::pair<double, int>;  // (load, CTA): least load first, then lowest index
  std::priority_queue<Slot, std::vector<Slot>, std::greater<Slot>> least;
  for (int b = 0; b < blocks; ++b) least.push({0.0, b});
  for (int u : by_cost) {
    const int b = least.top().second;
    least.pop();
    runs[static_cast<size_t>(b)].push_back(u);
    load[static_cast<size_t>(b)] += c[static_cast<size_t>(u)];
    least.push({load[static_cast<size_t>(b)], b});
  }
  // Local search on the busiest CTA; every accepted step lowers the pair's larger load below the
  // busiest, so it ends (bounded anyway).
  constexpr double kEps = 1e-9;
  for (int step = 0; step < 64 * units; ++step) {
    const int hi = static_cast<int>(std::max_element(load.begin(), load.end()) - load.begin());
    const double top = load[static_cast<size_t>(hi)];
    std::vector<int> by_load(static_cast<size_t>(blocks));
    std::iota(by_load.begin(), by_load.end(), 0);
    std::stable_sort(by_load.begin(), by_load.end(), [&](int a, int b) { return load[a] < load[b]; });
    bool moved = false;
    std::vector<int>& from = runs[static_cast<size_t>(hi)];
    for (int lo : by_load) {
      if (lo == hi) continue;
      std::vector<int>& to = runs[static_cast<size_t>(lo)];
      for (size_t i = 0; i < from.size() && !moved; ++i) {
        const double cu = c[static_cast<size_t>(from[i])];
        if (load[static_cast<size_t>(lo)] + cu < top - kEps) {  // move
          to.push_back(from[i]);
          from.erase(from.begin() + static_cast<std::ptrdiff_t>(i));
          load[static_cast<size_t>(hi)] -= cu;
          load[static_cast<size_t>(lo)] += cu;
          moved = true;
          break;
        }
        for (size_t k = 0; k < to.size(); ++k) {  // swap for a cheaper unit
          const double d = cu - c[static_cast<size_t>(to[k])];
          if (d > kEps && load[static_cast<size_t>(lo)] + d < top - kEps) {
            std::swap(from[i], to[k]);
            load[static_cast<size_t>(hi)] -= d;
            load[static_cast<size_t>(lo)] += d;
            moved = true;
            break;
          }
        }
      }
      if (moved) break;
    }
    if (!moved) break;
  }
  // Each CTA's units costliest first (its last, cheapest unit then ends with the others').
  for (auto& run : runs)
    std::stable_sort(run.begin(), run.end(), [&](int a, int b) { return c[a] > c[b]; });
  return to_order(runs, load);
}
}  // namespace detail

// extra > 0 (what each unit costs its CTA beyond `cost`): the better of the two by the busiest
// CTA's cost + extra per unit (ties keep by_rounds, whose stride form has no -1 entries and keeps
// round-robin's order for equal costs). extra = 0: by_rounds alone (without a per-unit cost,
// uneven unit counts would be priced as free).
inline Balanced balanced_order(const std::vector<double>& cost, int blocks, double extra = 0.0) {
  const int units = static_cast<int>(cost.size());
  if (units == 0 || blocks <= 0) return Balanced{};
  blocks = std::min(blocks, units);
  Balanced a = detail::by_rounds(cost, blocks, extra);
  if (extra <= 0.0) return a;
  Balanced b = detail::free_counts(cost, blocks, extra);
  return b.busiest < a.busiest - 1e-9 ? b : a;
}

// How a device order holds a unit (GroupScheduler::order): the unit in the low kOrderGroupShift
// bits, its group above them, so that a CTA finds the unit's group without a scan of the group
// table (docs/perf-notes.md P82); -1 stays -1. order_code writes an entry, order_group and
// order_unit read it (host and device); order_fits: every group and unit of a launch fits.
inline constexpr int kOrderGroupShift = 24;
constexpr int order_code(int group, int unit) { return group << kOrderGroupShift | unit; }
constexpr int order_group(int code) { return code >> kOrderGroupShift; }
constexpr int order_unit(int code) { return code & ((1 << kOrderGroupShift) - 1); }
inline constexpr bool order_fits(int64_t groups, int64_t units) {
  return groups >= 1 && groups <= (int64_t{1} << (31 - kOrderGroupShift)) && units <= (int64_t{1} << kOrderGroupShift);
}
// `order` (units, -1 past a CTA's last) coded with each unit's group, group g's units starting
// at first_unit[g] (ascending, first_unit[0] = 0; the caller checked order_fits).
inline std::vector<int> order_codes(const std::vector<int>& order, const std::vector<int64_t>& first_unit) {
  std::vector<int> coded(order.size(), -1);
  for (size_t i = 0; i < order.size(); ++i) {
    const int u = order[i];
    if (u < 0) continue;
    const auto g = std::upper_bound(first_unit.begin(), first_unit.end(), int64_t{u}) - first_unit.begin() - 1;
    coded[i] = order_code(static_cast<int>(g), u);
  }
  return coded;
}

// ---- cut units (docs/perf-notes.md P125) ----
// A unit too large for a CTA's share may be cut in two K ranges that run on neighbouring CTAs:
// its writer part, K steps [0, cut), opens CTA b + 1's run and leaves its FP32 sums in that CTA's
// slot of a workspace; its adder part, [cut, steps), closes CTA b's run, adds the writer's sums to
// its own after its K loop and stores the tile. The writer runs first on its CTA and the adder last
// on its own, and a unit is cut only where, in the model, the writer ends before the adder starts
// (wrap_fill), so the adder finds the sums there. The same part adds the same sums every launch
// (one FP32 addition per output): deterministic.
// A part's order code: below -1 (-1 stays "past the CTA's last unit"), -2 - payload, payload =
// writer << 29 | cut << 16 | group << 12 | unit. Host and device.
inline constexpr int kPartUnitBits = 12, kPartGroupBits = 4, kPartCutBits = 13;
constexpr int part_code(int group, int unit, int cut, bool writer) {
  return -2 - ((writer ? 1 << 29 : 0) | cut << 16 | group << kPartUnitBits | unit);
}
constexpr bool is_part(int code) { return code < -1; }
constexpr int part_unit(int code) { return (-2 - code) & ((1 << kPartUnitBits) - 1); }
constexpr int part_group(int code) { return (-2 - code) >> kPartUnitBits & ((1 << kPartGroupBits) - 1); }
constexpr int part_cut(int code) { return (-2 - code) >> 16 & ((1 << kPartCutBits) - 1); }
constexpr bool part_writer(int code) { return ((-2 - code) >> 29 & 1) != 0; }
// Every group, unit and K step of a launch fits a part's code.
inline constexpr bool parts_fit(int64_t groups, int64_t units, int64_t max_steps) {
  return groups >= 1 && groups <= (int64_t{1} << kPartGroupBits) && units <= (int64_t{1} << kPartUnitBits) &&
         max_steps < (int64_t{1} << kPartCutBits);
}

struct Piece {
  int unit = 0;
  int cut = 0;    // parts: the K step between the writer's range and the adder's
  int role = 0;   // 0: the whole unit; 1: the writer part [0, cut); 2: the adder part [cut, steps)
};
struct Wrapped {
  std::vector<std::vector<Piece>> runs;  // runs[b]: CTA b's pieces in order
  double busiest = 0;                    // the largest per-CTA cost, parts' costs included
  int cuts = 0;
};

namespace detail {
// McNaughton's wrap-around in cost: the units, costliest first, fill CTA 0 up to `bound`, then
// CTA 1, ...; the unit that crosses the bound is cut at the K step where CTA b's room ends (its
// adder part closes CTA b, its writer part opens CTA b + 1), unless either part would have fewer
// than min_part steps or the writer would end after the adder starts (the unit then opens CTA
// b + 1 whole). Each piece costs `extra` on top of its K steps at its unit's price, a writer
// `writer` more (its sums stored) and an adder `adder` more (the sums read and added). Empty result:
// `blocks` CTAs do not hold the units under this bound.
inline Wrapped wrap_fill(const std::vector<int>& by_cost, const std::vector<int>& steps, const std::vector<double>& price,
                         int blocks, double extra, double writer, double adder, int min_part, double bound) {
  Wrapped w;
  w.runs.assign(1, {});
  double load = 0;
  const auto next_cta = [&](double closing) {
    w.busiest = std::max(w.busiest, closing);
    w.runs.emplace_back();
    return static_cast<int>(w.runs.size()) <= blocks;
  };
  for (int u : by_cost) {
    const double p = price[static_cast<size_t>(u)];
    const int s = steps[static_cast<size_t>(u)];
    const double whole = s * p + extra;
    if (load + whole <= bound + 1e-9) {
      w.runs.back().push_back(Piece{u, 0, 0});
      load += whole;
      continue;
    }
    const double room = bound - load - extra - adder;
    const int tail = room > 0 ? static_cast<int>(room / p) : 0;  // the adder's steps on this CTA
    if (tail >= min_part && s - tail >= min_part && (s - tail) * p + extra + writer <= load) {
      const int cut = s - tail;
      w.runs.back().push_back(Piece{u, cut, 2});
      if (!next_cta(load + tail * p + extra + adder)) return Wrapped{};
      w.runs.back().push_back(Piece{u, cut, 1});
      load = cut * p + extra + writer;
      ++w.cuts;
    } else {
      if (!next_cta(load)) return Wrapped{};
      w.runs.back().push_back(Piece{u, 0, 0});
      load = whole;
    }
  }
  w.busiest = std::max(w.busiest, load);
  return w;
}
}  // namespace detail

// The least bound (bisection) under which wrap_fill fits `blocks` CTAs; steps[u] and price[u]
// (cost per K step) of each unit. Empty runs if no unit is given.
inline Wrapped wrapped_parts(const std::vector<int>& steps, const std::vector<double>& price, int blocks, double extra,
                             double writer, double adder, int min_part) {
  const size_t units = steps.size();
  if (units == 0 || blocks <= 0 || price.size() != units) return Wrapped{};
  std::vector<int> by_cost(units);
  std::iota(by_cost.begin(), by_cost.end(), 0);
  const auto cost = [&](int u) { return steps[static_cast<size_t>(u)] * price[static_cast<size_t>(u)]; };
  std::stable_sort(by_cost.begin(), by_cost.end(), [&](int a, int b) { return cost(a) > cost(b); });
  double lo = 0, hi = 0;
  for (int u : by_cost) {
    lo = std::max(lo, cost(u) + extra);
    hi += cost(u) + extra;
  }
  lo = std::max(lo, hi / blocks);
  Wrapped best = detail::wrap_fill(by_cost, steps, price, blocks, extra, writer, adder, min_part, hi);
  for (int i = 0; i < 48 && hi - lo > 1e-6 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    Wrapped w = detail::wrap_fill(by_cost, steps, price, blocks, extra, writer, adder, min_part, mid);
    if (w.runs.empty()) {
      lo = mid;
    } else {
      hi = mid;
      best = std::move(w);
    }
  }
  return best;
}

// The runs in the stride form (order[j * blocks + b], -1 past a CTA's last piece; no renumbering
// of the CTAs, since a writer's CTA is its adder's + 1), coded: whole units as order_code, parts
// as part_code; group g's units start at first_unit[g] (the caller checked parts_fit).
inline std::vector<int> wrapped_codes(const Wrapped& w, int blocks, const std::vector<int64_t>& first_unit) {
  size_t rounds = 0;
  for (const auto& run : w.runs) rounds = std::max(rounds, run.size());
  std::vector<int> order(rounds * static_cast<size_t>(blocks), -1);
  for (size_t b = 0; b < w.runs.size(); ++b)
    for (size_t j = 0; j < w.runs[b].size(); ++j) {
      const Piece& p = w.runs[b][j];
      const auto g = std::upper_bound(first_unit.begin(), first_unit.end(), int64_t{p.unit}) - first_unit.begin() - 1;
      order[j * static_cast<size_t>(blocks) + b] =
          p.role == 0 ? order_code(static_cast<int>(g), p.unit) : part_code(static_cast<int>(g), p.unit, p.cut, p.role == 1);
    }
  while (!order.empty() && order.back() == -1) order.pop_back();
  return order;
}

// The busiest CTA's sum of cost + extra per unit when CTA b takes units b, b + blocks, ... in
// their own order.
inline double round_robin_busiest(const std::vector<double>& cost, int blocks, double extra = 0.0) {
  if (blocks <= 0) return 0;
  std::vector<double> load(static_cast<size_t>(blocks), 0.0);
  for (size_t u = 0; u < cost.size(); ++u) load[u % static_cast<size_t>(blocks)] += cost[u] + extra;
  return *std::max_element(load.begin(), load.end());
}

}  // namespace nvfp4::gemm
