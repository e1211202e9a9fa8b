// SPDX-License-Identifier: Apache-2.0
// prefetch_plan.hpp: the L2 warm-up that the token pre-pass (gemm_tokens.cuh) issues for the
// tensor-core GEMM-family main loops (P48, docs/perf-notes.md), host and device (the host tests
// check it: tests/host/prefetch_plan_test.cpp). The main loop's first K steps would otherwise come
// from DRAM while the pre-pass before it, a latency-bound launch, leaves DRAM idle.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/nvfp4.hpp"
#include "stream_k.hpp"

namespace nvfp4::gemm {

// Runs of `spans` byte spans, each `bytes` long, `stride` bytes apart from `base`.
inline constexpr int kMaxPrefetchRuns = 32;
struct PrefetchRun {
  const uint8_t* base = nullptr;
  int64_t stride = 0;
  int32_t spans = 0;
  int32_t bytes = 0;
};
struct PrefetchPlan {
  PrefetchRun runs[kMaxPrefetchRuns];
  int count = 0;
  int64_t spans = 0;  // over all runs
  int steps = 0;      // K steps prefetched per unit
  int64_t bytes = 0;  // in all
};

// What the plan needs of one GEMM of the launch: its packed weights B (and B2: b[1], or null),
// their blocked scales (PROBLEMS.md 1.3), N, K and the batch count L.
struct PrefetchGemm {
  const uint8_t* b[2] = {};
  const uint8_t* sfb_blk[2] = {};
  int64_t n = 0, k = 0, l = 1;
};

// For a data-parallel launch whose units (tile, split) start at their split's first K step
// (split_k_begin, k_steps = K / k_step): for every GEMM, matrix, batch and split, the first
// P K steps of all N weight rows (P x k_step / 2 bytes each) and of the ceil(N / 128) scale-atom
// rows (P x 512 bytes; one 512-byte atom holds 128 rows x 4 scales = 64 K elements, so k_step must
// be 64), P the most steps whose bytes fit `budget` (at least one where one step's bytes are
// within 4x the budget) and no more than the shortest split. Runs past kMaxPrefetchRuns are left
// out. Every span lies inside its tensor.
inline PrefetchPlan plan_prefetch(const std::vector<PrefetchGemm>& gemms, int splits, int k_step, int64_t budget) {
  PrefetchPlan pp;
  int64_t per_step = 0;
  int64_t steps = int64_t{1} << 30;
  for (const PrefetchGemm& g : gemms) {
    const int64_t nb = g.b[1] != nullptr ? 2 : 1;
    const int k_steps = static_cast<int>(g.k / k_step);
    per_step += splits * nb * g.l * (g.n * (k_step / 2) + SfGeometry{g.n, g.k / 16, g.l}.row_blocks() * kAtomBytes);
    for (int s = 0; s < splits; ++s)
      steps = std::min<int64_t>(steps, split_k_steps(k_steps, s, splits));
  }
  if (per_step == 0 || budget <= 0 || k_step != 64) return pp;
  const int64_t fit = budget / per_step;
  steps = std::min(steps, fit > 0 ? fit : per_step <= 4 * budget ? 1 : 0);
  if (steps <= 0) return pp;
  pp.steps = static_cast<int>(steps);
  auto add = [&](const uint8_t* base, int64_t stride, int64_t spans, int64_t bytes) {
    if (pp.count == kMaxPrefetchRuns) return;
    pp.runs[pp.count++] = PrefetchRun{base, stride, static_cast<int32_t>(spans), static_cast<int32_t>(bytes)};
    pp.spans += spans;
    pp.bytes += spans * bytes;
  };
  for (const PrefetchGemm& g : gemms) {
    const int k_steps = static_cast<int>(g.k / k_step);
    const int64_t row = g.k / 2;
    // An atom row (128 weight rows' scales along all of K) is col_blocks() atoms, one per K step.
    const SfGeometry sf{g.n, g.k / 16, g.l};
    const int64_t atom_row = sf.col_blocks() * kAtomBytes;
    for (int j = 0; j < 2 && g.b[j] != nullptr; ++j)
      for (int64_t l = 0; l < g.l; ++l)
        for (int s = 0; s < splits; ++s) {
          const int64_t k0 = split_k_begin(k_steps, s, splits);
          add(g.b[j] + l * g.n * row + k0 * (k_step / 2), row, g.n, steps * (k_step / 2));
          add(g.sfb_blk[j] + sf.blocked_offset(0, k0 * (k_step / 16), l), atom_row, sf.row_blocks(), steps * kAtomBytes);
        }
  }
  return pp;
}

}  // namespace nvfp4::gemm
