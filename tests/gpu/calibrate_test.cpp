// SPDX-License-Identifier: Apache-2.0
// calibrate (src/measure/calibrate.cu): the measured rates, the decode+wgmma ceiling on CC 9.0
// only (with a note elsewhere), the decode+mma.sync one on CC 8.0 and newer, and the runner's % of
// the wgmma ceiling for the GEMM family only.
#include <gtest/gtest.h>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "measure/calibrate.hpp"
#include "run/runner.hpp"

using namespace nvfp4;

TEST(Calibrate, RatesAndTheGemmPathsCeilings) {
  CUDA_CHECK(cudaSetDevice(0));
  const DeviceInfo dev = query_device(0);
  Stream stream;
  const Calibration cal = calibrate(dev, stream.get());
  EXPECT_GT(cal.hbm_read_gbps, 0.0);
  EXPECT_GT(cal.fp16_tensor_tflops, 0.0);
  if (dev.cc_major == 9 && dev.cc_minor == 0) {
    ASSERT_TRUE(cal.decode_wgmma_tflops) << cal.notes;
    ASSERT_TRUE(cal.wgmma_rs_tflops) << cal.notes;
    EXPECT_GT(*cal.decode_wgmma_tflops, 0.0);
    // Sanity, not a speed target: neither loop beats the part's dense FP16 rate (989 TFLOP/s on an
    // H100 SXM at 1.83 GHz; 10 % for a higher boost clock), which a loop optimized away would.
    // (No order between the two is asserted: paced, an H200 measures 890 TFLOP/s with the decode
    // and 932 without, docs/perf-notes.md P191; back to back, under the power cap, the order was
    // the other way round.)
    if (const auto spec = sol_rates_for(dev.name, dev.cc())) {
      EXPECT_LE(*cal.wgmma_rs_tflops, 1.1 * spec->flops_per_s / 1e12) << cal.notes;
      EXPECT_LE(*cal.decode_wgmma_tflops, 1.1 * spec->flops_per_s / 1e12) << cal.notes;
    }
    EXPECT_NE(cal.notes.find("decode+wgmma: "), std::string::npos) << cal.notes;
    EXPECT_NE(cal.notes.find("wgmma rs: "), std::string::npos) << cal.notes;
    EXPECT_NE(cal.notes.find("median of 10"), std::string::npos) << cal.notes;
    // Paced launches (P190: back to back they run under the power cap), and the throttle count.
    EXPECT_NE(cal.notes.find("each launch after 100 ms idle"), std::string::npos) << cal.notes;
  } else {
    EXPECT_FALSE(cal.decode_wgmma_tflops);
    EXPECT_FALSE(cal.wgmma_rs_tflops);
    EXPECT_NE(cal.notes.find("not measured (wgmma needs sm_90a"), std::string::npos) << cal.notes;
  }
  // The mma.sync path's ceiling on every GPU the tensor-core kernels run on (CC 8.0 and newer),
  // under the same sanity bound, and below the wgmma path's where both are measured (mma.sync
  // tops out near 61 % of the dense rate on Hopper: ../shared/docs/TECHNIQUES.md).
  if (dev.cc_major >= 8) {
    ASSERT_TRUE(cal.decode_mma_tflops) << cal.notes;
    ASSERT_TRUE(cal.mma_sync_tflops) << cal.notes;
    EXPECT_GT(*cal.decode_mma_tflops, 0.0);
    if (const auto spec = sol_rates_for(dev.name, dev.cc())) {
      EXPECT_LE(*cal.mma_sync_tflops, 1.1 * spec->flops_per_s / 1e12) << cal.notes;
      EXPECT_LE(*cal.decode_mma_tflops, 1.1 * spec->flops_per_s / 1e12) << cal.notes;
    }
    if (cal.wgmma_rs_tflops) {
      EXPECT_LT(*cal.mma_sync_tflops, *cal.wgmma_rs_tflops) << cal.notes;
    }
    EXPECT_NE(cal.notes.find("decode+mma.sync: "), std::string::npos) << cal.notes;
    EXPECT_NE(cal.notes.find("mma.sync: the same loop"), std::string::npos) << cal.notes;
  }
  // A failed ceiling measurement leaves no CUDA error behind for later checks.
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

// The runner fills pct_ceiling from the calibration it is given: GEMM family yes, gemv no.
TEST(Calibrate, RunnerPctCeilingForTheGemmFamilyOnly) {
  RunPlan plan;
  plan.quiet = true;
  plan.floor_enabled = false;
  plan.timing.max_time_s = 0.1;
  plan.variants = {"naive"};
  for (const auto& [p, shape] : {std::pair{Problem::gemm, "128x256x256"}, std::pair{Problem::gemv, "256x256x1"}}) {
    CaseSpec c;
    c.problem = p;
    c.shape = parse_shape(p, shape);
    plan.cases.push_back(c);
  }
  Calibration cal;
  cal.decode_wgmma_tflops = 500.0;
  const RunOutcome with = run_plan(plan, query_device(0), std::nullopt, all_variants(), cal);
  ASSERT_EQ(with.results.size(), 2u);
  const Metrics& gemm = with.results[0].metrics;
  ASSERT_EQ(with.results[0].status, Status::pass) << with.results[0].reason;
  ASSERT_TRUE(gemm.tflops);
  ASSERT_TRUE(gemm.pct_ceiling);
  EXPECT_DOUBLE_EQ(*gemm.pct_ceiling, 100.0 * *gemm.tflops / 500.0);
  EXPECT_FALSE(with.results[1].metrics.pct_ceiling) << "gemv is memory-bound: no % ceiling";

  const RunOutcome without = run_plan(plan, query_device(0), std::nullopt, all_variants());
  for (const CaseResult& r : without.results) EXPECT_FALSE(r.metrics.pct_ceiling) << to_string(r.problem);
}
