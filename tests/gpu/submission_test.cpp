// SPDX-License-Identifier: Apache-2.0
// gpu-mode submissions (--submission) through the runner like any variant: the two examples
// (examples/submissions/: plain PyTorch and a Triton kernel) verified on the gpu-mode test shapes
// and the smoke shapes of all four problems and timed with CUPTI; a submission that raises is
// ERROR with the exception's last line, one that returns the wrong shape or count is FAIL, and the
// graph timer SKIPs a submission. Skipped where the machine's python3 has no torch with CUDA.
#include <gtest/gtest.h>

#include "gpu_test_util.hpp"
#include "run/runner.hpp"
#include "run/submission.hpp"

using namespace nvfp4;

namespace {

std::string repo_file(const std::string& rel) { return test::source_dir() + "/" + rel; }

const LoadedSubmissions& submissions() {
  static const LoadedSubmissions s = load_submissions(
      {repo_file("examples/submissions/torch_submission.py"), repo_file("examples/submissions/triton_submission.py"),
       repo_file("tests/submissions/raises.py"), repo_file("tests/submissions/wrong_shape.py")},
      std::nullopt, 0, {});
  return s;
}

// The loaded variants named `name` (one per problem).
std::vector<const VariantInfo*> named(std::initializer_list<std::string_view> names) {
  std::vector<const VariantInfo*> out;
  for (const VariantInfo* v : submissions().variants)
    for (std::string_view n : names)
      if (v->name == n) out.push_back(v);
  return out;
}

#define SKIP_WITHOUT_TORCH()                                                                         \
  do {                                                                                               \
    const SubmissionRecord& rec = submissions().records.front();                                     \
    if (!rec.skip.empty()) GTEST_SKIP() << "submissions cannot run here: " << rec.skip;              \
  } while (0)

RunPlan one_case(Problem p, const char* shape) {
  RunPlan plan;
  plan.timing_enabled = false;
  plan.floor_enabled = false;
  plan.quiet = true;
  CaseSpec c;
  c.problem = p;
  c.shape = parse_shape(p, shape);
  plan.cases.push_back(c);
  return plan;
}

const char* small_shape(Problem p) {
  switch (p) {
    case Problem::gemv: return "256x512x2";
    case Problem::group_gemm: return "96x128x256,128x256x256";
    default: return "128x256x512";
  }
}

}  // namespace

TEST(Submission, ExamplesVerifiedOnEveryProblem) {
  SKIP_WITHOUT_TORCH();
  const auto variants = named({"py:torch_submission", "py:triton_submission"});
  ASSERT_EQ(variants.size(), 8u);
  for (Problem p : kAllProblems) {
    std::vector<CaseSpec> cases = test::config_cases(std::string("configs/gpumode/") + std::string(to_string(p)) + ".json",
                                                     "test");
    for (auto& c : test::config_cases("configs/smoke.json")) cases.push_back(c);
    const RunPlan plan = test::verify_plan(p, cases);
    ASSERT_FALSE(plan.cases.empty()) << to_string(p);
    const RunOutcome out = run_plan(plan, query_device(0), std::nullopt, variants);
    ASSERT_FALSE(out.stopped_on_sticky_error) << out.sticky_message;
    EXPECT_EQ(out.results.size(), 2 * plan.cases.size()) << to_string(p);
    for (const CaseResult& r : out.results)
      EXPECT_EQ(r.status, Status::pass) << to_string(r.problem) << " " << r.shape << " " << to_string(r.dist) << " "
                                        << r.variant << ": " << r.reason;
  }
}

TEST(Submission, TimedLikeAnyVariant) {
  SKIP_WITHOUT_TORCH();
  for (Problem p : kAllProblems) {
    RunPlan plan = one_case(p, small_shape(p));
    plan.timing_enabled = true;
    plan.timing.timer = TimerKind::cupti;
    plan.timing.max_time_s = 0.2;
    const RunOutcome out = run_plan(plan, query_device(0), std::nullopt, named({"py:torch_submission", "py:triton_submission"}));
    ASSERT_EQ(out.results.size(), 2u);
    for (const CaseResult& r : out.results) {
      EXPECT_EQ(r.status, Status::pass) << to_string(p) << " " << r.variant << ": " << r.reason;
      ASSERT_TRUE(r.timing.has_value()) << r.variant;
      EXPECT_GT(r.timing->stats.median, 0.0);
      EXPECT_EQ(r.timing->timer, TimerKind::cupti);
    }
  }
}

// An exception in custom_kernel: ERROR with its last line, and the next variant still runs.
TEST(Submission, RaisingSubmissionIsErrorAndTheRunGoesOn) {
  SKIP_WITHOUT_TORCH();
  for (Problem p : kAllProblems) {
    RunPlan plan = one_case(p, small_shape(p));
    plan.variants = {"py:raises", "py:torch_submission"};  // the raising one first
    const RunOutcome out = run_plan(plan, query_device(0), std::nullopt, named({"py:raises", "py:torch_submission"}));
    ASSERT_EQ(out.results.size(), 2u);
    EXPECT_EQ(out.results[0].status, Status::error) << to_string(p);
    EXPECT_NE(out.results[0].reason.find("custom_kernel raised ValueError: fixture: this submission always raises"),
              std::string::npos)
        << out.results[0].reason;
    EXPECT_EQ(out.results[1].status, Status::pass) << out.results[1].reason;
  }
}

TEST(Submission, WrongOutputIsFail) {
  SKIP_WITHOUT_TORCH();
  for (Problem p : kAllProblems) {
    const RunOutcome out = run_plan(one_case(p, small_shape(p)), query_device(0), std::nullopt, named({"py:wrong_shape"}));
    ASSERT_EQ(out.results.size(), 1u);
    const CaseResult& r = out.results[0];
    EXPECT_EQ(r.status, Status::fail) << to_string(p) << ": " << r.reason;
    const char* want = p == Problem::group_gemm ? "returned a list of 1 outputs, want 2" : "custom_kernel returned a wrong output";
    EXPECT_NE(r.reason.find(want), std::string::npos) << r.reason;
  }
}

TEST(Submission, GraphTimerSkipsIt) {
  SKIP_WITHOUT_TORCH();
  RunPlan plan = one_case(Problem::gemm, small_shape(Problem::gemm));
  plan.timing_enabled = true;
  plan.timing.timer = TimerKind::graph;
  const RunOutcome out = run_plan(plan, query_device(0), std::nullopt, named({"py:torch_submission"}));
  ASSERT_EQ(out.results.size(), 1u);
  EXPECT_EQ(out.results[0].status, Status::skip);
  EXPECT_NE(out.results[0].reason.find("--timer graph cannot capture"), std::string::npos) << out.results[0].reason;
  ASSERT_TRUE(out.results[0].check.has_value());
  EXPECT_TRUE(out.results[0].check->passed());
}

// With torch present: a module the file imports is missing -> its cases SKIP saying so; an
// exception at import -> a usage error naming the file.
TEST(Submission, ImportProblems) {
  SKIP_WITHOUT_TORCH();
  const LoadedSubmissions missing = load_submissions({repo_file("tests/submissions/missing_module.py")}, std::nullopt, 0, {});
  ASSERT_EQ(missing.records.size(), 1u);
  EXPECT_NE(missing.records[0].skip.find("imports a module that"), std::string::npos) << missing.records[0].skip;
  EXPECT_NE(missing.records[0].skip.find("nvfp4bench_fixture_module_that_does_not_exist"), std::string::npos);
  try {
    load_submissions({repo_file("tests/submissions/import_raises.py")}, std::nullopt, 0, {});
    ADD_FAILURE() << "import_raises.py loaded";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("importing it raised RuntimeError: fixture: broken at import"), std::string::npos)
        << e.what();
  }
}
