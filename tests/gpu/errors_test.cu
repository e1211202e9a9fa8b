// SPDX-License-Identifier: Apache-2.0
// CUDA errors inside a run: a failing variant is reported ERROR and the run goes on; a sticky
// error (the context is lost) stops the run with the results so far, which can still be written.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "report/report.hpp"
#include "run/runner.hpp"

using namespace nvfp4;

namespace {

// ---- test variants (gemm) ----

__global__ void write_through(int* p) { *p = 1; }

class BadLaunchRunner : public Runner {
 public:
  void run(cudaStream_t s) override {
    write_through<<<1, 4096, 0, s>>>(nullptr);  // 4096 threads per block: the launch is refused
    CUDA_CHECK_LAUNCH();
  }
};

class FaultRunner : public Runner {
 public:
  void run(cudaStream_t s) override {
    write_through<<<1, 1, 0, s>>>(reinterpret_cast<int*>(0x10));  // illegal address: sticky
    CUDA_CHECK_LAUNCH();
  }
};

std::string runs_anywhere(const DeviceInfo&, const Shape&) { return ""; }
std::unique_ptr<Runner> make_bad_launch(const CaseView&, cudaStream_t) { return std::make_unique<BadLaunchRunner>(); }
std::unique_ptr<Runner> make_fault(const CaseView&, cudaStream_t) { return std::make_unique<FaultRunner>(); }

const VariantInfo kBadLaunch{Problem::gemm, "bad-launch", "test: invalid launch configuration", "", &runs_anywhere,
                             &make_bad_launch};
const VariantInfo kFault{Problem::gemm, "fault", "test: illegal address", "", &runs_anywhere, &make_fault};

RunPlan small_plan(int cases) {
  RunPlan plan;
  plan.timing_enabled = false;
  plan.floor_enabled = false;
  for (int i = 0; i < cases; ++i) {
    CaseSpec c;
    c.problem = Problem::gemm;
    c.shape = parse_shape(Problem::gemm, "128x256x256");
    c.seed = 1111 + static_cast<uint64_t>(i);
    plan.cases.push_back(c);
  }
  return plan;
}

const VariantInfo* registry_variant(const char* name) {
  const VariantInfo* v = find_variant(Problem::gemm, name);
  EXPECT_NE(v, nullptr);
  return v;
}

}  // namespace

TEST(Errors, FailingVariantIsErrorAndTheRunGoesOn) {
  const RunOutcome out = run_plan(small_plan(1), query_device(0), std::nullopt,
                                  {&kBadLaunch, registry_variant("naive")});
  ASSERT_FALSE(out.stopped_on_sticky_error);
  ASSERT_EQ(out.results.size(), 2u);
  EXPECT_EQ(out.results[0].status, Status::error);
  // The refused launch surfaces at the check after it (cudaErrorInvalidValue on driver 580).
  EXPECT_NE(out.results[0].reason.find("cudaGetLastError() failed: cudaError"), std::string::npos)
      << out.results[0].reason;
  EXPECT_EQ(out.results[1].status, Status::pass) << out.results[1].reason;
}

// Runs in a fresh process (threadsafe death-test style re-executes the binary): the illegal
// address destroys the CUDA context of the process it happens in.
TEST(Errors, StickyErrorStopsTheRunAndKeepsTheResultsSoFar) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        const RunOutcome out = run_plan(small_plan(2), query_device(0), std::nullopt,
                                        {registry_variant("naive"), &kFault, registry_variant("cublaslt")});
        // Case 1: naive PASS, then the fault: ERROR and stop; case 2 and cublaslt never run.
        const bool ok = out.stopped_on_sticky_error && out.results.size() == 2 &&
                        out.results[0].status == Status::pass && out.results[1].status == Status::error &&
                        out.results[1].reason.find("cudaErrorIllegalAddress") != std::string::npos;
        RunInfo info;
        info.plan = small_plan(2);
        const std::string path = (std::filesystem::temp_directory_path() / "nvfp4bench_sticky.json").string();
        write_json(path, info, out.results);  // the partial report is still written
        const bool written = std::filesystem::file_size(path) > 0;
        std::filesystem::remove(path);
        std::fprintf(stderr, "sticky: stopped=%d results=%zu written=%d\n", out.stopped_on_sticky_error,
                     out.results.size(), written);
        std::exit(ok && written ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "sticky: stopped=1 results=2 written=1");
}
