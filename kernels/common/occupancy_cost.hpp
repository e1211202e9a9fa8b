// SPDX-License-Identifier: Apache-2.0
// occupancy_cost.hpp: the data-parallel time of a launch whose CTAs can share an SM (`tensor-core`:
// 2 CTAs per SM), in K steps of a CTA that shares its SM (docs/perf-notes.md P65).
//
// Measured on an H100 (P65): the hardware places CTAs one per SM first (and clusters of s CTAs only
// on the SMs where whole clusters fit), and a CTA alone on its SM runs a K step in ~0.58 of the time
// of one that shares it. A one-wave launch ends with its slowest CTA, so it runs at the lone rate
// only if EVERY SM holds at most one of its CTAs: `lone` (CTAs that fit one per SM in clusters of
// s) decides, not the SM count. Host code (host tests: tests/host/occupancy_cost_test.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "balance.hpp"

namespace nvfp4::gemm {

// `steps`: every unit's K steps in launch order (CTA b runs unit b; units past `resident` start as
// earlier CTAs finish). lone_step: a lone CTA's K step relative to a sharing one.
//  - at most `lone` units: the longest unit at the lone rate;
//  - at most `resident`: the longest unit at the shared rate;
//  - more: the busiest CTA of a round robin over `resident` CTAs, at the shared rate. (A last
//    partial wave that fits one per SM does run at the lone rate, but crediting it picked 2 splits
//    in 3 waves for group_gemm G=8 N=4096, 6.8 % slower than stream-K: every wave pays its own
//    reduction and ramp. P65 outcome.)
inline double occupancy_cost(const std::vector<double>& steps, int64_t lone, int64_t resident, double lone_step) {
  if (steps.empty() || resident <= 0) return 0;
  const int64_t n = static_cast<int64_t>(steps.size());
  const double longest = *std::max_element(steps.begin(), steps.end());
  if (n <= lone) return longest * lone_step;
  if (n <= resident) return longest;
  return round_robin_busiest(steps, static_cast<int>(resident));
}

}  // namespace nvfp4::gemm
