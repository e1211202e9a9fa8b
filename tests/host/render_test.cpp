// SPDX-License-Identifier: Apache-2.0
// render_test.cpp: every format is made from the JSON alone. The CSV, Markdown and HTML a run
// writes (write_reports) equal those rendered later from its JSON file (read_json_report +
// write_formats, what `nvfp4bench render` does); the reader gets back the whole header; the HTML
// page is self-contained (no external resource, the data and Chart.js inline).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "report/cells.hpp"
#include "report/compare.hpp"
#include "report/report.hpp"
#include "report/report_read.hpp"

namespace nvfp4 {
namespace {

namespace fs = std::filesystem;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

RunInfo sample_info() {
  RunInfo info;
  info.tool_version = "0.1.0";
  info.git_sha = "abc123def456";
  info.command_line = "nvfp4bench --config configs/smoke.json --html 'a b.html'";
  info.timestamp = "2026-01-02T03:04:05Z";
  info.plan.keep_samples = true;
  info.plan.timer_reason = "default: CUPTI works on this GPU";
  info.plan.module_loading = "EAGER (nvfp4bench default)";
  info.plan.timing.timer = TimerKind::cupti;
  info.plan.timing.max_time_s = 2.5;
  DeviceInfo d;
  d.name = "NVIDIA H200";
  d.cc_major = 9;
  d.sms = 132;
  d.l2_bytes = 62914560;
  d.mem_bytes = 150109880320;
  d.sm_clock_khz = 1980000;
  d.mem_clock_khz = 3201000;
  d.driver_version = 13000;
  d.runtime_version = 12080;
  d.cublaslt_version = 130100;
  info.device = d;
  info.sol = SolRates{"H200", 4.8e12, 989e12, "fp16-tensor"};
  info.sol_spec = info.sol;
  info.plan.config_path = "configs/smoke.json";
  CaseSpec c;
  c.seed = 1111;
  info.plan.cases = {c, c};
  return info;
}

std::vector<CaseResult> sample_results() {
  CaseResult a;
  a.problem = Problem::gemv;
  a.shape = "7168x16384x1";
  a.variant = "vectorized";
  a.role = "benchmark";
  a.seed = 1111;
  a.status = Status::pass;
  a.reference = "cublaslt-fp16-dequant";
  a.reason = "1 of 4 samples below 90% of the starting SM clock (1980 MHz, min 1400 MHz)";
  CheckResult ck;
  ck.checked = 7168;
  a.check = ck;
  TimingResult t;
  t.timer = TimerKind::cupti;
  t.samples_us = {20.1, 20.4, 20.3, 24.0};
  t.stats = SampleStats{4, 21.2, 20.35, 20.1, 24.0, 1.9, 0.04, 20.2, 22.9, 0.09, 0.01, 1};
  t.stop_reason = "max samples";
  t.clocks.before = ClockSample{1980, 3201, 40, 300.5, 0};
  t.clocks.after = ClockSample{1400, 3201, 44, 650.25, 0};
  t.clocks.reference_sm_mhz = 1980;
  t.clocks.min_sm_mhz = 1400;
  t.clocks.throttled_samples = 1;
  a.timing = t;
  a.metrics.flops = 234881024;
  a.metrics.bytes = 66083840;
  a.metrics.tflops = 11.5;
  a.metrics.gbps = 3239.4;
  a.metrics.sol_us = 13.77;
  a.metrics.pct_sol = 67.5;
  a.metrics.b200_target_us = 8.622;
  a.metrics.floor_us = 18.69;
  a.metrics.vs_floor = 1.09;
  a.repro = "nvfp4bench --problem gemv --shape 7168x16384x1 --variant vectorized --seed 1111 --dist gpumode";
  CaseResult b = a;
  b.variant = "naive";
  b.status = Status::fail;
  b.reason = "3 of 7168 elements mismatch";
  b.check->mismatches = 3;
  b.check->first = {Mismatch{0, 0, 5, 0, std::numeric_limits<float>::quiet_NaN(), 1.5f}};
  b.timing.reset();
  b.metrics = Metrics{};
  CaseResult c = a;
  c.problem = Problem::group_gemm;
  c.shape = "80x4096x7168,176x4096x7168";
  c.variant = "tensor-core";
  c.status = Status::skip;
  c.reason = "no 'tensor-core' variant for group_gemm </script> yet";
  c.check.reset();
  c.timing.reset();
  c.metrics = Metrics{};
  return {a, b, c};
}

class RenderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = (fs::temp_directory_path() / "nvfp4_render_XXXXXX").string();
    ASSERT_NE(::mkdtemp(templ.data()), nullptr);
    m_dir = templ;
  }
  void TearDown() override { fs::remove_all(m_dir); }
  std::string path(const std::string& name) const { return (fs::path(m_dir) / name).string(); }
  void expect_run_equals_render(RunInfo info, const std::vector<CaseResult>& results);
  std::string m_dir;
};

void RenderTest::expect_run_equals_render(RunInfo info, const std::vector<CaseResult>& results) {
  info.plan.outputs = OutputPaths{path("run.json"), path("run.csv"), path("run.md"), path("run.html"), ""};
  write_reports(info, results);

  const ReportFile back = read_json_report(path("run.json"));
  write_formats(back, OutputPaths{"", path("later.csv"), path("later.md"), path("later.html"), ""});
  for (const char* ext : {"csv", "md", "html"}) {
    const std::string run = read_text(path(std::string("run.") + ext)), later = read_text(path(std::string("later.") + ext));
    EXPECT_FALSE(run.empty()) << ext;
    EXPECT_EQ(run, later) << ext << " rendered from the JSON differs from the run's";
  }

  // The in-memory printers agree with the ones fed from the JSON (nothing is lost on the way).
  write_csv(path("direct.csv"), info, results);
  write_markdown(path("direct.md"), info, results);
  EXPECT_EQ(read_text(path("direct.csv")), read_text(path("run.csv")));
  EXPECT_EQ(read_text(path("direct.md")), read_text(path("run.md")));
}

TEST_F(RenderTest, RunFormatsEqualRenderedFormats) { expect_run_equals_render(sample_info(), sample_results()); }

// With a measured decode+wgmma ceiling: the %ceiling column and the calibration survive the JSON.
TEST_F(RenderTest, RunFormatsEqualRenderedFormatsWithCeiling) {
  RunInfo info = sample_info();
  Calibration cal;
  cal.hbm_read_gbps = 4500;
  cal.fp16_tensor_tflops = 760;
  cal.decode_wgmma_tflops = 610;
  cal.wgmma_rs_tflops = 655;
  cal.notes = "decode+wgmma: ...";
  info.calibration = cal;
  std::vector<CaseResult> results = sample_results();
  CaseResult gemm = results[0];
  gemm.problem = Problem::gemm;
  gemm.shape = "128x7168x16384";
  gemm.metrics.tflops = 305.0;
  gemm.metrics.pct_ceiling = pct_of_ceiling(gemm.problem, gemm.metrics.tflops, cal);
  results.push_back(gemm);
  expect_run_equals_render(info, results);
  EXPECT_NE(read_text(path("run.md")).find("| %ceiling |"), std::string::npos);
  EXPECT_NE(read_text(path("run.md")).find("| 50.0 |"), std::string::npos);
  EXPECT_NE(read_text(path("run.html")).find("\"decode_wgmma_tflops\":610"), std::string::npos);
}

TEST_F(RenderTest, ReaderGetsTheHeaderBack) {
  RunInfo info = sample_info();
  write_json(path("r.json"), info, sample_results());
  const ReportFile f = read_json_report(path("r.json"));
  ASSERT_TRUE(f.info.device);
  EXPECT_EQ(f.info.device->name, "NVIDIA H200");
  EXPECT_EQ(f.info.device->cc(), 90);
  EXPECT_EQ(f.info.device->sms, 132);
  EXPECT_EQ(f.info.device->sm_clock_khz, 1980000);
  EXPECT_EQ(f.info.device->runtime_version, 12080);
  EXPECT_EQ(f.info.device->cublaslt_version, 130100u);
  ASSERT_TRUE(f.info.sol);
  EXPECT_DOUBLE_EQ(f.info.sol->hbm_bytes_per_s, 4.8e12);
  EXPECT_EQ(f.info.plan.timing.timer, TimerKind::cupti);
  EXPECT_EQ(f.info.plan.timer_reason, "default: CUPTI works on this GPU");
  EXPECT_EQ(f.info.plan.module_loading, "EAGER (nvfp4bench default)");
  EXPECT_NE(report::settings_line(f.info).find("modules EAGER (nvfp4bench default)"), std::string::npos);
  EXPECT_DOUBLE_EQ(f.info.plan.timing.max_time_s, 2.5);
  EXPECT_EQ(f.info.seed, 1111u);
  EXPECT_EQ(report::settings_line(f.info), report::settings_line(info));
  ASSERT_TRUE(f.results[0].timing);
  EXPECT_EQ(f.results[0].timing->clocks.throttled_samples, 1);
  EXPECT_EQ(f.results[0].timing->clocks.min_sm_mhz, 1400);
}

TEST_F(RenderTest, HtmlIsSelfContained) {
  RunInfo info = sample_info();
  info.plan.outputs.json = path("r.json");
  info.plan.outputs.html = path("r.html");
  write_reports(info, sample_results());
  const std::string html = read_text(path("r.html"));
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("Content-Security-Policy"), std::string::npos);
  EXPECT_NE(html.find("default-src 'none'"), std::string::npos);
  EXPECT_NE(html.find("Chart.js v"), std::string::npos) << "Chart.js is inlined";
  EXPECT_NE(html.find("id=\"nvfp4-data\""), std::string::npos);
  EXPECT_NE(html.find("\"schema\":\"nvfp4bench.report/1\""), std::string::npos) << "the report's JSON is the data";
  for (const char* external : {"<script src", "<link", "<img", "<iframe", "url("})
    EXPECT_EQ(html.find(external), std::string::npos) << external;
  // A "</script>" inside the data cannot end the data element.
  EXPECT_EQ(html.find("group_gemm </script>"), std::string::npos);
  EXPECT_NE(html.find("group_gemm \\u003c/script>"), std::string::npos);
}

TEST_F(RenderTest, CommittedReportRenders) {
  const std::string json = std::string(NVFP4_SOURCE_DIR) + "/results/2026-11-21_nvidia-h200_66c2e6d1ee40_default.json";
  const ReportFile f = read_json_report(json);
  EXPECT_EQ(f.results.size(), 37u);
  ASSERT_TRUE(f.info.device);
  EXPECT_EQ(f.info.device->name, "NVIDIA H200");
  EXPECT_EQ(f.info.plan.config_path, "configs/default.json");
  write_formats(f, OutputPaths{"", path("d.csv"), path("d.md"), path("d.html"), ""});
  EXPECT_EQ(read_text(path("d.md")), read_text(std::string(NVFP4_SOURCE_DIR) +
                                               "/results/2026-11-21_nvidia-h200_66c2e6d1ee40_default.md"))
      << "the committed Markdown was written by that run; rendered from its JSON now it is the same";
}

TEST_F(RenderTest, CompareHtml) {
  RunInfo info = sample_info();
  write_json(path("base.json"), info, sample_results());
  std::vector<CaseResult> slower = sample_results();
  slower[0].timing->stats.median *= 1.5;
  slower[0].timing->stats.robust_noise = 0.01;
  write_json(path("new.json"), info, slower);
  std::ostringstream out;
  EXPECT_EQ(run_compare(path("base.json"), path("new.json"), 5.0, "", out, false, path("c.html")), 4);
  const std::string html = read_text(path("c.html"));
  EXPECT_NE(html.find("\"kind\":\"nvfp4bench.compare\""), std::string::npos);
  EXPECT_NE(html.find("\"verdict\":\"SLOWER\""), std::string::npos);
  EXPECT_NE(html.find("\"outcome\":\"REGRESSION\""), std::string::npos);
  EXPECT_NE(html.find("Chart.js v"), std::string::npos);
}

}  // namespace
}  // namespace nvfp4
