// SPDX-License-Identifier: Apache-2.0
// compare_test.cpp: `compare` on synthetic reports written to a temporary directory.
#include <gtest/gtest.h>

#include <cmath>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "report/compare.hpp"
#include "report/report.hpp"
#include "measure/stats.hpp"
#include "run/results.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Case {
  std::string problem = "gemm";
  std::string shape = "128x7168x16384";
  std::string variant = "naive";
  std::string dist = "gpumode";
  std::string status = "PASS";
  double median_us = 100.0;
  double noise = 0.005;
  bool timed = true;
};

json report(const std::vector<Case>& cases, const std::string& schema = nvfp4::kReportSchema) {
  json doc = {{"schema", schema}, {"tool_version", "0.1.0"}};
  json results = json::array();
  for (const auto& c : cases) {
    json r = {{"problem", c.problem}, {"shape", c.shape}, {"variant", c.variant},
              {"dist", c.dist},       {"status", c.status}};
    if (c.timed) {
      r["timing"] = {{"median_us", c.median_us}, {"mean_us", c.median_us},
                     {"stddev_us", c.noise * c.median_us}, {"rse", c.noise / 10}, {"noise", c.noise},
                     {"samples", 100}};
    } else {
      r["timing"] = nullptr;
    }
    results.push_back(r);
  }
  doc["results"] = results;
  return doc;
}

std::vector<Case> three_cases() {
  Case a;
  Case b = a;
  b.variant = "cublaslt";
  b.median_us = 50.0;
  Case c = a;
  c.problem = "gemv";
  c.shape = "7168x16384x1";
  c.median_us = 20.0;
  return {a, b, c};
}

class CompareTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "nvfp4_compare_XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    m_dir = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(m_dir, ec);
  }

  std::string write(const std::string& name, const std::string& text) {
    const auto p = (m_dir / name).string();
    std::ofstream(p) << text;
    return p;
  }
  std::string write(const std::string& name, const json& doc) { return write(name, doc.dump(2)); }

  // Runs compare; the printed table lands in m_out.
  int compare(const json& base, const json& cur, double threshold = 5.0, const std::string& md = "") {
    m_out.str("");
    return nvfp4::run_compare(write("base.json", base), write("new.json", cur), threshold, md, m_out);
  }
  // Number of table rows whose verdict column is `verdict`.
  int rows_with(const std::string& verdict) const {
    std::istringstream in(m_out.str());
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      if (line.rfind("compare:", 0) == 0) continue;
      const std::string cell = "  " + verdict;
      const bool at_end = line.size() >= cell.size() && line.compare(line.size() - cell.size(), cell.size(), cell) == 0;
      if (line.find(cell + "  ") != std::string::npos || at_end) ++n;
    }
    return n;
  }

  fs::path m_dir;
  std::ostringstream m_out;
};

TEST_F(CompareTest, IdenticalIsSame) {
  const auto r = report(three_cases());
  EXPECT_EQ(compare(r, r), 0);
  EXPECT_EQ(rows_with("SAME"), 3) << m_out.str();
  EXPECT_NE(m_out.str().find("3 cases: 3 same, 0 faster, 0 slower, 0 failed, 0 noisy, 0 new, 0 missing"), std::string::npos)
      << m_out.str();
  EXPECT_NE(m_out.str().find("-> OK"), std::string::npos);
}

TEST_F(CompareTest, TenPercentSlowerIsRegression) {
  auto cases = three_cases();
  const auto base = report(cases);
  cases[1].median_us *= 1.10;
  EXPECT_EQ(compare(base, report(cases)), 4);
  EXPECT_EQ(rows_with("SLOWER"), 1) << m_out.str();
  EXPECT_EQ(rows_with("SAME"), 2) << m_out.str();
  EXPECT_NE(m_out.str().find("REGRESSION"), std::string::npos);
}

TEST_F(CompareTest, TenPercentFasterPasses) {
  auto cases = three_cases();
  const auto base = report(cases);
  cases[0].median_us *= 0.90;
  EXPECT_EQ(compare(base, report(cases)), 0);
  EXPECT_EQ(rows_with("FASTER"), 1) << m_out.str();
}

TEST_F(CompareTest, WithinThresholdIsSame) {
  auto cases = three_cases();
  const auto base = report(cases);
  cases[0].median_us *= 1.04;
  cases[1].median_us *= 0.96;
  EXPECT_EQ(compare(base, report(cases)), 0);
  EXPECT_EQ(rows_with("SAME"), 3) << m_out.str();
  // A tighter threshold catches the same change.
  EXPECT_EQ(compare(base, report(cases), 2.0), 4);
  EXPECT_EQ(rows_with("SLOWER"), 1) << m_out.str();
  EXPECT_EQ(rows_with("FASTER"), 1) << m_out.str();
}

TEST_F(CompareTest, NoisyTenPercentSlowerIsSame) {
  auto cases = three_cases();
  for (auto& c : cases) c.noise = 0.04;  // 4 % relative noise in both runs: tolerance 2*sqrt(2)*4 % ~ 11 %
  const auto base = report(cases);
  cases[1].median_us *= 1.10;
  EXPECT_EQ(compare(base, report(cases)), 0);
  EXPECT_EQ(rows_with("SAME"), 3) << m_out.str();
  EXPECT_EQ(rows_with("SLOWER"), 0);
}

TEST_F(CompareTest, NoiseFallsBackToRse) {
  auto j = report(three_cases());
  for (auto& r : j["results"]) {
    r["timing"].erase("noise");
    r["timing"]["rse"] = 0.04;
  }
  auto slower = j;
  slower["results"][0]["timing"]["median_us"] = 110.0;
  EXPECT_EQ(compare(j, slower), 0) << m_out.str();
}

TEST_F(CompareTest, MissingAndNewCases) {
  auto cases = three_cases();
  const auto base = report(cases);
  cases.erase(cases.begin() + 2);  // gemv dropped
  Case extra;
  extra.variant = "vectorized";
  cases.push_back(extra);
  EXPECT_EQ(compare(base, report(cases)), 0);
  EXPECT_EQ(rows_with("MISSING"), 1) << m_out.str();
  EXPECT_EQ(rows_with("NEW"), 1) << m_out.str();
  EXPECT_EQ(rows_with("SAME"), 2) << m_out.str();
}

TEST_F(CompareTest, DistIsPartOfTheKey) {
  auto cases = three_cases();
  const auto base = report(cases);
  cases[0].dist = "uniform";
  EXPECT_EQ(compare(base, report(cases)), 0);
  EXPECT_EQ(rows_with("MISSING"), 1) << m_out.str();
  EXPECT_EQ(rows_with("NEW"), 1) << m_out.str();
}

TEST_F(CompareTest, FailedCaseIsRegression) {
  auto cases = three_cases();
  const auto base = report(cases);
  cases[2].status = "FAIL";
  EXPECT_EQ(compare(base, report(cases)), 4);
  EXPECT_EQ(rows_with("FAILED"), 1) << m_out.str();
  EXPECT_NE(m_out.str().find("PASS -> FAIL"), std::string::npos);
}

TEST_F(CompareTest, ErrorAndNoLongerPassingAreFailed) {
  auto cases = three_cases();
  const auto base = report(cases);
  cases[0].status = "ERROR";
  cases[0].timed = false;
  cases[1].status = "SKIP";
  cases[1].timed = false;
  EXPECT_EQ(compare(base, report(cases)), 4);
  EXPECT_EQ(rows_with("FAILED"), 2) << m_out.str();
}

TEST_F(CompareTest, SkippedInBothIsSame) {
  auto cases = three_cases();
  cases[0].status = "SKIP";
  cases[0].timed = false;
  const auto r = report(cases);
  EXPECT_EQ(compare(r, r), 0);
  EXPECT_EQ(rows_with("SAME"), 3) << m_out.str();
}

TEST_F(CompareTest, SchemaMismatchIsError) {
  const auto good = report(three_cases());
  const auto bad = report(three_cases(), "nvfp4bench.report/0");
  EXPECT_EQ(compare(good, bad), 2);
  EXPECT_EQ(compare(bad, good), 2);
  json no_schema = good;
  no_schema.erase("schema");
  EXPECT_EQ(compare(good, no_schema), 2);
}

TEST_F(CompareTest, MalformedJsonIsError) {
  const auto good = write("good.json", report(three_cases()));
  const auto broken = write("broken.json", std::string("{\"schema\": \"nvfp4bench.report/1\", \"results\": [ {"));
  std::ostringstream out;
  EXPECT_EQ(nvfp4::run_compare(good, broken, 5.0, "", out), 2);
  EXPECT_EQ(nvfp4::run_compare(broken, good, 5.0, "", out), 2);
  // Valid JSON with the wrong shape is malformed too.
  json wrong = report(three_cases());
  wrong["results"][0]["shape"] = 42;
  EXPECT_EQ(compare(report(three_cases()), wrong), 2);
  json no_results = report(three_cases());
  no_results.erase("results");
  EXPECT_EQ(compare(report(three_cases()), no_results), 2);
}

TEST_F(CompareTest, UnreadableFileIsError) {
  const auto good = write("good.json", report(three_cases()));
  std::ostringstream out;
  EXPECT_EQ(nvfp4::run_compare(good, (m_dir / "absent.json").string(), 5.0, "", out), 2);
}

TEST_F(CompareTest, WritesMarkdown) {
  auto cases = three_cases();
  const auto base = report(cases);
  cases[1].median_us *= 1.10;
  const auto md = (m_dir / "compare.md").string();
  EXPECT_EQ(compare(base, report(cases), 5.0, md), 4);
  std::ifstream in(md);
  ASSERT_TRUE(in.good());
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("| problem | shape | variant |"), std::string::npos) << text;
  EXPECT_NE(text.find("| SLOWER |"), std::string::npos) << text;
  EXPECT_NE(text.find("-> REGRESSION"), std::string::npos) << text;
  // No temporary file is left beside it.
  int files = 0;
  for (const auto& e : fs::directory_iterator(m_dir)) files += e.path().filename().string().find(".tmp") != std::string::npos;
  EXPECT_EQ(files, 0);
}

TEST_F(CompareTest, UnwritableMarkdownIsError) {
  const auto r = report(three_cases());
  EXPECT_EQ(compare(r, r, 5.0, (m_dir / "no_such_dir" / "x.md").string()), 2);
}

TEST(Classify, ThresholdAndNoise) {
  double tol = 0;
  EXPECT_EQ(nvfp4::classify_change(1.049, 5.0, 0, 0, &tol), nvfp4::Verdict::same);
  EXPECT_DOUBLE_EQ(tol, 0.05);
  EXPECT_EQ(nvfp4::classify_change(1.051, 5.0, 0, 0), nvfp4::Verdict::slower);
  EXPECT_EQ(nvfp4::classify_change(0.949, 5.0, 0, 0), nvfp4::Verdict::faster);
  // Noise widens the tolerance: 2 * sqrt(0.03^2 + 0.04^2) = 0.10.
  EXPECT_EQ(nvfp4::classify_change(1.09, 5.0, 0.03, 0.04, &tol), nvfp4::Verdict::same);
  EXPECT_NEAR(tol, 0.10, 1e-12);
  EXPECT_EQ(nvfp4::classify_change(1.11, 5.0, 0.03, 0.04), nvfp4::Verdict::slower);
}

TEST(Classify, NoiseNeverWidensBeyondTheCap) {
  double tol = 0, noise_tol = 0;
  // Robust noise 30 % in both runs asks for 85 %; the cap is 3 x 5 % = 15 %.
  EXPECT_EQ(nvfp4::classify_change(2.0, 5.0, 0.3, 0.3, &tol, &noise_tol), nvfp4::Verdict::slower);
  EXPECT_NEAR(tol, 0.15, 1e-12);
  EXPECT_NEAR(noise_tol, 2 * std::sqrt(0.18), 1e-12);
  EXPECT_EQ(nvfp4::classify_change(0.5, 5.0, 0.3, 0.3), nvfp4::Verdict::faster);
  EXPECT_EQ(nvfp4::classify_change(1.16, 5.0, 0.3, 0.3), nvfp4::Verdict::slower);
  // Within the cap, but the noise is beyond it: not SAME, NOISY.
  EXPECT_EQ(nvfp4::classify_change(1.10, 5.0, 0.3, 0.3), nvfp4::Verdict::noisy);
  EXPECT_EQ(nvfp4::classify_change(1.00, 5.0, 0.3, 0.3), nvfp4::Verdict::noisy);
  // Noise just under the cap still widens the tolerance (2 * sqrt(2) * 5 % ~ 14.1 %).
  EXPECT_EQ(nvfp4::classify_change(1.12, 5.0, 0.05, 0.05, &tol), nvfp4::Verdict::same);
  EXPECT_NEAR(tol, 2 * std::sqrt(0.005), 1e-12);
}

// ---- robust noise (issue 9): reports whose timing blocks come from real sample lists ----

// 20 samples around `median` (+-1 %), `outliers` of them replaced by `outlier_factor` x median.
std::vector<double> samples_around(double median, int outliers = 0, double outlier_factor = 10.0) {
  std::vector<double> v;
  for (int i = 0; i < 20; ++i) v.push_back(median * (1.0 + 0.001 * ((i * 7) % 21 - 10)));
  for (int i = 0; i < outliers; ++i) v[static_cast<size_t>(3 + 2 * i)] = outlier_factor * median;
  return v;
}

// A one-case report whose timing block is what write_json writes for these samples (with
// `robust` false: a report from before robust_noise, which compare must handle the same way).
json sampled_report(const std::vector<double>& samples, bool robust, bool keep_samples) {
  const nvfp4::SampleStats st = nvfp4::summarize(samples);
  json t = {{"timer", "events"}, {"samples", st.n},        {"median_us", st.median}, {"mean_us", st.mean},
            {"min_us", st.min},  {"max_us", st.max},       {"stddev_us", st.stddev}, {"p10_us", st.p10},
            {"p90_us", st.p90},  {"rse", st.rse},          {"noise", st.noise}};
  if (robust) t["robust_noise"] = st.robust_noise, t["outliers"] = st.outliers;
  if (keep_samples) t["samples_us"] = samples;
  json r = {{"problem", "gemv"}, {"shape", "7168x2048x4"}, {"variant", "vectorized"}, {"dist", "gpumode"},
            {"status", "PASS"}, {"timing", t}};
  return json{{"schema", nvfp4::kReportSchema}, {"results", json::array({r})}};
}

std::vector<double> scaled(std::vector<double> v, double f) {
  for (double& x : v) x *= f;
  return v;
}

TEST_F(CompareTest, OneOutlierCannotHideATwoTimesRegression) {
  // The reproduction: one sample 10x the median makes stddev/mean about 2; the new report's
  // median is 2x. With any of the report forms, that is SLOWER and exit 4.
  const auto base = samples_around(32.0, 1);
  ASSERT_GT(nvfp4::summarize(base).noise, 1.0);
  ASSERT_EQ(nvfp4::summarize(base).outliers, 1);
  const auto slow = scaled(base, 2.0);
  for (const bool robust : {true, false})
    for (const bool keep : {true, false}) {
      if (!robust && !keep) continue;  // covered below by the p10..p90 fallback
      EXPECT_EQ(compare(sampled_report(base, robust, keep), sampled_report(slow, robust, keep)), 4)
          << "robust " << robust << ", samples " << keep << "\n" << m_out.str();
      EXPECT_EQ(rows_with("SLOWER"), 1) << m_out.str();
    }
  // An old report with neither robust_noise nor samples: p10..p90 is not moved by one outlier in 20.
  EXPECT_EQ(compare(sampled_report(base, false, false), sampled_report(slow, false, false)), 4) << m_out.str();
  // And no change stays SAME.
  EXPECT_EQ(compare(sampled_report(base, true, true), sampled_report(base, true, true)), 0) << m_out.str();
  EXPECT_EQ(rows_with("SAME"), 1) << m_out.str();
}

TEST_F(CompareTest, ManyOutliersStillJudgedOnTheBulk) {
  // 6 of 20 samples 3x the median (30 %): the MAD rests on the other 14.
  const auto base = samples_around(100.0, 6, 3.0);
  ASSERT_EQ(nvfp4::summarize(base).outliers, 6);
  ASSERT_LT(nvfp4::summarize(base).robust_noise, 0.02);
  EXPECT_EQ(compare(sampled_report(base, true, false), sampled_report(scaled(base, 1.10), true, false)), 4)
      << m_out.str();
  EXPECT_EQ(rows_with("SLOWER"), 1) << m_out.str();
  EXPECT_EQ(compare(sampled_report(base, true, false), sampled_report(scaled(base, 1.02), true, false)), 0)
      << m_out.str();
  EXPECT_EQ(rows_with("SAME"), 1) << m_out.str();
}

TEST_F(CompareTest, TwoTimesRegressionUnderHeavyNoiseIsSlower) {
  auto cases = three_cases();
  for (auto& c : cases) c.noise = 0.3;  // noise beyond the cap in every case
  const auto base = report(cases);
  cases[0].median_us *= 2.0;
  EXPECT_EQ(compare(base, report(cases)), 4) << m_out.str();
  EXPECT_EQ(rows_with("SLOWER"), 1) << m_out.str();
  EXPECT_EQ(rows_with("NOISY"), 2) << m_out.str();
}

TEST_F(CompareTest, NoisyCasesAreListedAndFailUnlessAllowed) {
  auto cases = three_cases();
  cases[2].noise = 0.3;
  const auto base = report(cases);
  EXPECT_EQ(compare(base, base), nvfp4::kExitNoisy) << m_out.str();
  EXPECT_EQ(rows_with("NOISY"), 1) << m_out.str();
  EXPECT_EQ(rows_with("SAME"), 2) << m_out.str();
  EXPECT_NE(m_out.str().find("too noisy to judge"), std::string::npos) << m_out.str();
  EXPECT_NE(m_out.str().find("  gemv 7168x16384x1 naive gpumode"), std::string::npos) << m_out.str();
  EXPECT_NE(m_out.str().find("-> NOISY"), std::string::npos) << m_out.str();
  m_out.str("");
  EXPECT_EQ(nvfp4::run_compare(write("b.json", base), write("n.json", base), 5.0, "", m_out, true), 0);
  EXPECT_NE(m_out.str().find("OK (noisy cases allowed)"), std::string::npos) << m_out.str();
  // A regression elsewhere still wins: exit 4.
  auto slow = cases;
  slow[0].median_us *= 1.5;
  EXPECT_EQ(compare(base, report(slow)), 4) << m_out.str();
}

TEST_F(CompareTest, TimerChangeIsNoted) {
  auto base = sampled_report(samples_around(10.0), true, false);
  auto cur = base;
  cur["results"][0]["timing"]["timer"] = "cupti";
  EXPECT_EQ(compare(base, cur), 0);
  EXPECT_NE(m_out.str().find("timer events -> cupti"), std::string::npos) << m_out.str();
}

}  // namespace
