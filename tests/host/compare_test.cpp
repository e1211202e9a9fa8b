// SPDX-License-Identifier: Apache-2.0
// compare_test.cpp: `compare` on synthetic reports written to a temporary directory.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "report/compare.hpp"
#include "report/report.hpp"
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
  EXPECT_NE(m_out.str().find("3 cases: 3 same, 0 faster, 0 slower, 0 failed, 0 new, 0 missing"), std::string::npos)
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
  for (auto& c : cases) c.noise = 0.06;  // 6 % relative noise in both runs: tolerance 2*sqrt(2)*6 % ~ 17 %
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
    r["timing"]["rse"] = 0.1;
  }
  auto slower = j;
  slower["results"][0]["timing"]["median_us"] = 115.0;
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

}  // namespace
