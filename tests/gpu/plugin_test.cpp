// SPDX-License-Identifier: Apache-2.0
// The example plugin (examples/plugin/example_plugin.cu, loaded from <build>/plugins/) through the
// runner like any variant: every element verified on the gpu-mode gemm test shapes, the smoke
// and edge gemm shapes, and group_gemm; timed on one shape.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "gpu_test_util.hpp"
#include "run/plugin.hpp"
#include "run/runner.hpp"

using namespace nvfp4;

namespace {

// $NVFP4_PLUGIN_DIR, else <dir of this binary>/../plugins (works in a build carried elsewhere).
std::string plugin_file(const std::string& name) {
  if (const char* env = std::getenv("NVFP4_PLUGIN_DIR"); env && *env) return std::string(env) + "/" + name;
  return (std::filesystem::canonical("/proc/self/exe").parent_path().parent_path() / "plugins" / name).string();
}

const LoadedPlugins& plugins() {
  static const LoadedPlugins p = load_plugins({plugin_file("example_plugin.so")});
  return p;
}

void expect_all_pass(const RunOutcome& out, size_t at_least) {
  ASSERT_FALSE(out.stopped_on_sticky_error) << out.sticky_message;
  EXPECT_GE(out.results.size(), at_least);
  for (const CaseResult& r : out.results) {
    EXPECT_EQ(r.status, Status::pass) << to_string(r.problem) << " " << r.shape << " " << r.variant << ": " << r.reason;
    EXPECT_EQ(r.variant.rfind("example:", 0), 0u) << r.variant;
  }
}

}  // namespace

TEST(Plugin, ExampleGemmVerified) {
  std::vector<CaseSpec> cases = test::config_cases("configs/gpumode/gemm.json", "test");
  for (auto& c : test::config_cases("configs/smoke.json")) cases.push_back(c);
  for (auto& c : test::config_cases("configs/gemm_edges.json")) cases.push_back(c);
  const RunPlan plan = test::verify_plan(Problem::gemm, cases);
  ASSERT_FALSE(plan.cases.empty());
  // Both gemm variants of the plugin (rowmajor and blocked scales) on every case.
  expect_all_pass(run_plan(plan, query_device(0), std::nullopt, plugins().variants), 2 * plan.cases.size());
}

TEST(Plugin, ExampleGroupGemmVerified) {
  std::vector<CaseSpec> cases = test::config_cases("configs/gpumode/group_gemm.json", "test");
  for (auto& c : test::config_cases("configs/smoke.json")) cases.push_back(c);
  const RunPlan plan = test::verify_plan(Problem::group_gemm, cases);
  ASSERT_FALSE(plan.cases.empty());
  expect_all_pass(run_plan(plan, query_device(0), std::nullopt, plugins().variants), plan.cases.size());
}

TEST(Plugin, ExampleGemvAndDualGemmVerified) {
  for (Problem p : {Problem::gemv, Problem::dual_gemm}) {
    std::vector<CaseSpec> cases = test::config_cases(std::string("configs/gpumode/") + std::string(to_string(p)) + ".json",
                                                     "test");
    for (auto& c : test::config_cases("configs/smoke.json")) cases.push_back(c);
    const RunPlan plan = test::verify_plan(p, cases);
    ASSERT_FALSE(plan.cases.empty()) << to_string(p);
    expect_all_pass(run_plan(plan, query_device(0), std::nullopt, plugins().variants), plan.cases.size());
  }
}

TEST(Plugin, ExampleTimedLikeAnyVariant) {
  RunPlan plan;
  plan.quiet = true;
  plan.timing.max_time_s = 0.2;
  CaseSpec c;
  c.problem = Problem::gemm;
  c.shape = parse_shape(Problem::gemm, "128x512x1024");
  plan.cases.push_back(c);
  plan.variants = {"naive", "example:rowmajor"};
  std::vector<const VariantInfo*> variants = all_variants();
  variants.insert(variants.end(), plugins().variants.begin(), plugins().variants.end());
  const RunOutcome out = run_plan(plan, query_device(0), std::nullopt, variants);
  ASSERT_EQ(out.results.size(), 2u);
  for (const CaseResult& r : out.results) {
    EXPECT_EQ(r.status, Status::pass) << r.variant << ": " << r.reason;
    ASSERT_TRUE(r.timing.has_value()) << r.variant;
    EXPECT_GT(r.timing->stats.median, 0.0);
  }
  EXPECT_EQ(out.results[1].variant, "example:rowmajor");
}

// prepare or run returning non-zero: an ERROR row naming the plugin variant, and the run goes on.
TEST(Plugin, FailingPluginIsErrorAndTheRunGoesOn) {
  const LoadedPlugins failing = load_plugins({plugin_file("fixture_fails.so")});
  RunPlan plan;
  plan.timing_enabled = false;
  plan.floor_enabled = false;
  plan.quiet = true;
  CaseSpec c;
  c.problem = Problem::gemm;
  c.shape = parse_shape(Problem::gemm, "128x256x256");
  plan.cases.push_back(c);
  std::vector<const VariantInfo*> variants = failing.variants;
  variants.push_back(find_variant(Problem::gemm, "naive"));
  const RunOutcome out = run_plan(plan, query_device(0), std::nullopt, variants);
  ASSERT_FALSE(out.stopped_on_sticky_error) << out.sticky_message;
  ASSERT_EQ(out.results.size(), 3u);
  EXPECT_EQ(out.results[0].status, Status::error);
  EXPECT_NE(out.results[0].reason.find("fails:prepare: prepare returned 1"), std::string::npos) << out.results[0].reason;
  EXPECT_EQ(out.results[1].status, Status::error);
  EXPECT_NE(out.results[1].reason.find("fails:run: run returned 1"), std::string::npos) << out.results[1].reason;
  EXPECT_EQ(out.results[2].status, Status::pass) << out.results[2].reason;
}
