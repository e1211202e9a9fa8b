// SPDX-License-Identifier: Apache-2.0
// prefetch_plan_test.cpp: the L2 warm-up the token pre-pass issues (kernels/common/prefetch_plan.hpp):
// how many K steps a budget buys, that every span starts at its split's first K step and stays
// inside its tensor, B2 and batches, and the limits (no budget, a K step other than 64, the run cap).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "../../kernels/common/prefetch_plan.hpp"

namespace nvfp4::gemm {
namespace {

// Real buffers for one GEMM's packed weights and blocked scales, so spans can be checked against them.
struct Tensors {
  std::vector<uint8_t> b[2], sf[2];
  PrefetchGemm g;
  Tensors(int64_t n, int64_t k, int64_t l, bool dual) {
    const int64_t atoms = (n + 127) / 128;
    for (int j = 0; j < (dual ? 2 : 1); ++j) {
      b[j].resize(static_cast<size_t>(l * n * k / 2));
      sf[j].resize(static_cast<size_t>(l * atoms * (k / 64) * 512));
      g.b[j] = b[j].data();
      g.sfb_blk[j] = sf[j].data();
    }
    g.n = n;
    g.k = k;
    g.l = l;
  }
};

// Every span inside one of the tensors; returns how many spans start each matrix's rows at K step
// k0 of a split (checked by the caller against the split starts).
void expect_inside(const PrefetchPlan& pp, const std::vector<const Tensors*>& ts) {
  for (int r = 0; r < pp.count; ++r) {
    const PrefetchRun& run = pp.runs[r];
    const uint8_t* first = run.base;
    const uint8_t* last = run.base + (run.spans - 1) * run.stride + run.bytes;  // one past the last byte
    bool inside = false;
    for (const Tensors* t : ts)
      for (int j = 0; j < 2; ++j)
        for (const std::vector<uint8_t>* v : {&t->b[j], &t->sf[j]})
          if (!v->empty() && first >= v->data() && last <= v->data() + v->size()) inside = true;
    EXPECT_TRUE(inside) << "run " << r << " leaves its tensor";
    EXPECT_EQ(run.bytes % 16, 0);
  }
}

TEST(PrefetchPlan, BudgetBuysWholeKSteps) {
  // gemm 128x7168x2048 in 2 splits: one K step of every unit is 2 x (7168 x 32 + 56 x 512) bytes.
  const Tensors t(7168, 2048, 1, false);
  const int64_t step = 2 * (7168 * 32 + 56 * 512);
  for (const auto& [budget, steps] : std::vector<std::pair<int64_t, int>>{
           {1 << 20, 2}, {step, 1}, {3 * step + 5, 3}, {step / 4, 1}, {step / 4 - 1, 0}, {int64_t{1} << 30, 16}}) {
    const PrefetchPlan pp = plan_prefetch({t.g}, 2, 64, budget);
    EXPECT_EQ(pp.steps, steps) << "budget " << budget;
    if (steps == 0) {
      EXPECT_EQ(pp.count, 0);
      EXPECT_EQ(pp.spans, 0);
      continue;
    }
    ASSERT_EQ(pp.count, 4);  // 2 splits x (weights, atoms)
    EXPECT_EQ(pp.spans, 2 * (7168 + 56));
    EXPECT_EQ(pp.bytes, steps * step);
    // split s of 32 K steps starts at step 16 s: byte 16 s x 32 of a weight row, atom 16 s of an atom row
    for (int s = 0; s < 2; ++s) {
      EXPECT_EQ(pp.runs[2 * s].base, t.g.b[0] + s * 16 * 32);
      EXPECT_EQ(pp.runs[2 * s].stride, 1024);
      EXPECT_EQ(pp.runs[2 * s].bytes, steps * 32);
      EXPECT_EQ(pp.runs[2 * s + 1].base, t.g.sfb_blk[0] + s * 16 * 512);
      EXPECT_EQ(pp.runs[2 * s + 1].stride, 32 * 512);
      EXPECT_EQ(pp.runs[2 * s + 1].bytes, steps * 512);
    }
    expect_inside(pp, {&t});
  }
}

TEST(PrefetchPlan, NoMoreStepsThanTheShortestSplit) {
  // K = 256: 4 K steps in 3 splits of 1, 1 and 2 steps.
  const Tensors t(200, 256, 1, false);
  const PrefetchPlan pp = plan_prefetch({t.g}, 3, 64, int64_t{1} << 30);
  EXPECT_EQ(pp.steps, 1);
  EXPECT_EQ(pp.runs[2].base, t.g.b[0] + 1 * 32);   // split 1 starts at K step 1
  EXPECT_EQ(pp.runs[4].base, t.g.b[0] + 2 * 32);   // split 2 at K step 2
  EXPECT_EQ(pp.runs[5].spans, 2);                  // ceil(200 / 128) atom rows
  expect_inside(pp, {&t});
}

TEST(PrefetchPlan, DualAndBatchesAndGroups) {
  const Tensors dual(300, 1024, 3, true);  // L = 3, N not a multiple of 128, B and B2
  PrefetchPlan pp = plan_prefetch({dual.g}, 1, 64, int64_t{1} << 30);
  EXPECT_EQ(pp.steps, 16);
  EXPECT_EQ(pp.count, 2 * 3 * 2);  // matrices x batches x (weights, atoms)
  EXPECT_EQ(pp.spans, 2 * 3 * (300 + 3));
  EXPECT_EQ(pp.runs[2].base, dual.g.b[0] + 300 * 512);  // batch 1 of B
  EXPECT_EQ(pp.runs[6].base, dual.g.b[1]);              // B2 after B's batches
  expect_inside(pp, {&dual});

  const Tensors g1(64, 512, 1, false), g2(4096, 1536, 1, false);
  pp = plan_prefetch({g1.g, g2.g}, 1, 64, int64_t{1} << 30);
  EXPECT_EQ(pp.steps, 8);  // the shorter GEMM's K steps
  EXPECT_EQ(pp.count, 4);
  EXPECT_EQ(pp.runs[2].base, g2.g.b[0]);
  expect_inside(pp, {&g1, &g2});
}

TEST(PrefetchPlan, Limits) {
  const Tensors t(7168, 2048, 1, false);
  EXPECT_EQ(plan_prefetch({t.g}, 2, 64, 0).count, 0);          // NVFP4_TOKEN_PREFETCH_MB=0
  EXPECT_EQ(plan_prefetch({t.g}, 2, 128, 1 << 20).count, 0);   // atoms hold 64 K elements: other steps unplanned
  EXPECT_EQ(plan_prefetch({}, 1, 64, 1 << 20).count, 0);
  // 20 GEMMs of one weight run and one atom run each: the runs past the cap are left out, and the
  // counts cover only the runs kept.
  std::vector<Tensors> many;
  many.reserve(20);
  std::vector<PrefetchGemm> gemms;
  for (int i = 0; i < 20; ++i) {
    many.emplace_back(128, 512, 1, false);
    gemms.push_back(many.back().g);
  }
  const PrefetchPlan pp = plan_prefetch(gemms, 1, 64, int64_t{1} << 30);
  EXPECT_EQ(pp.count, kMaxPrefetchRuns);
  EXPECT_EQ(pp.spans, kMaxPrefetchRuns / 2 * (128 + 1));
  EXPECT_EQ(pp.bytes, kMaxPrefetchRuns / 2 * (128 * 8 * 32 + 8 * 512));
}

}  // namespace
}  // namespace nvfp4::gemm
