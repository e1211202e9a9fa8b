// SPDX-License-Identifier: Apache-2.0
// report_test.cpp: report writers (src/report/) and NPY files (src/data/npy.cpp): JSON round trip,
// CSV / Markdown content, atomic writes, schema check.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "data/npy.hpp"
#include "report/report.hpp"
#include "report/report_read.hpp"
#include "run/results.hpp"

namespace nvfp4 {
namespace {

namespace fs = std::filesystem;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Files in `dir` whose name contains ".tmp." (left-over temporaries).
int temp_files(const std::string& dir) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) ++n;
  return n;
}

CaseResult pass_result() {
  CaseResult r;
  r.problem = Problem::gemm;
  r.shape = "128x7168x16384";
  r.variant = "cublaslt";
  r.role = "benchmark";
  r.seed = 1111;
  r.dist = Dist::gpumode;
  r.status = Status::pass;
  r.reference = "host-fp64";
  r.timing_note = "scale pointers set in prepare";
  r.plan = "3 consumer warpgroups (192 weight slots x 128 tokens per CTA), 38 tiles x 3 K splits on 114 CTAs";
  CheckResult c;
  c.checked = 917504;
  c.max_abs = 0.0009765625;
  c.max_rel = 0.0004;
  r.check = c;
  TimingResult t;
  t.l2 = L2Mode::cold;
  t.batch = 1;
  t.samples_us = {10.5, 10.25, 10.75, 11.0};
  t.stats = SampleStats{4, 10.625, 10.625, 10.25, 11.0, 0.32, 0.08, 10.325, 10.925, 0.03, 0.026, 1};
  t.stop_reason = "rse";
  t.extra_samples = 2;
  r.timing = t;
  r.metrics.flops = 2.0 * 128 * 7168 * 16384;
  r.metrics.bytes = 69.07e6;
  r.metrics.tflops = 2.83;
  r.metrics.gbps = 6500.5;
  r.metrics.sol_us = 20.6;
  r.metrics.pct_sol = 71.2;
  r.metrics.b200_target_us = 8.994;
  r.metrics.speedup_vs_cublaslt = 1.0;
  r.repro = "nvfp4bench --problem gemm --shape 128x7168x16384 --variant cublaslt --seed 1111";
  return r;
}

CaseResult fail_result() {
  CaseResult r;
  r.problem = Problem::group_gemm;
  r.shape = "80x4096x7168,176x4096x7168,128x4096x7168,72x4096x7168";
  r.variant = "naive";
  r.role = "test";
  r.seed = 1111;
  r.status = Status::fail;
  r.reference = "cublaslt";
  CheckResult c;
  c.checked = 1000;
  c.mismatches = 3;
  c.max_abs = 2.5;
  c.max_rel = 0.5;
  c.first = {Mismatch{1, 0, 5, 7, std::numeric_limits<float>::quiet_NaN(), 1.5f},
             Mismatch{1, 0, 5, 8, std::numeric_limits<float>::infinity(), -2.0f},
             Mismatch{1, 0, 6, 0, 3.25f, 0.75f}};
  r.check = c;
  r.metrics.flops = 1e9;
  r.metrics.bytes = 2e6;
  r.repro = "nvfp4bench --problem group_gemm --shape \"80x4096x7168,176x4096x7168\"";
  return r;
}

CaseResult skip_result() {
  CaseResult r;
  r.problem = Problem::gemv;
  r.shape = "7168x16384x1";
  r.variant = "tensor-core";
  r.role = "benchmark";
  r.seed = 7;
  r.dist = Dist::uniform;
  r.status = Status::skip;
  r.reason = "needs sm_100, device sm_90";
  return r;
}

RunInfo run_info() {
  RunInfo info;
  info.tool_version = "0.1.0";
  info.git_sha = "abc123def456";
  info.command_line = "nvfp4bench --config configs/smoke.json";
  info.timestamp = "2026-01-02T03:04:05Z";
  info.plan.keep_samples = true;
  DeviceInfo d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  d.sms = 132;
  d.l2_bytes = 52428800;
  d.mem_bytes = 85e9;
  d.sm_clock_khz = 1980000;
  d.mem_clock_khz = 2619000;
  d.driver_version = 13000;
  d.runtime_version = 13000;
  d.cublaslt_version = 130001;
  info.device = d;
  info.sol = SolRates{"H100 SXM", 3.35e12, 989e12, "fp16-tensor"};
  info.plan.config_path = "configs/smoke.json";
  info.plan.variants = {"naive", "cublaslt"};
  CaseSpec c;
  c.seed = 1111;
  info.plan.cases = {c, c};
  return info;
}

class ReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = (fs::temp_directory_path() / "nvfp4_report_XXXXXX").string();
    ASSERT_NE(::mkdtemp(templ.data()), nullptr);
    m_dir = templ;
  }
  void TearDown() override { fs::remove_all(m_dir); }
  std::string path(const std::string& name) const { return (fs::path(m_dir) / name).string(); }
  std::string m_dir;
  std::vector<CaseResult> m_results = {pass_result(), fail_result(), skip_result()};
};

TEST_F(ReportTest, SamplesOnlyWithKeepSamples) {
  RunInfo info = run_info();
  info.plan.keep_samples = false;
  const std::string p = path("nosamples.json");
  write_json(p, info, m_results);
  const auto back = read_json_report(p).results;
  ASSERT_TRUE(back[0].timing);
  EXPECT_TRUE(back[0].timing->samples_us.empty());
  EXPECT_EQ(back[0].timing->stats.n, 4);
}

TEST_F(ReportTest, StatusNames) {
  EXPECT_EQ(to_string(Status::pass), "PASS");
  EXPECT_EQ(to_string(Status::fail), "FAIL");
  EXPECT_EQ(to_string(Status::skip), "SKIP");
  EXPECT_EQ(to_string(Status::error), "ERROR");
}

TEST_F(ReportTest, JsonRoundTrip) {
  const std::string p = path("r.json");
  write_json(p, run_info(), m_results);
  EXPECT_EQ(temp_files(m_dir), 0);

  const ReportFile file = read_json_report(p);
  EXPECT_EQ(file.header.schema, kReportSchema);
  EXPECT_EQ(file.header.tool_version, "0.1.0");
  EXPECT_EQ(file.header.git_sha, "abc123def456");
  EXPECT_EQ(file.header.device_name, "NVIDIA H100 80GB HBM3");
  const auto back = file.results;
  ASSERT_EQ(back.size(), 3u);

  const CaseResult& a = back[0];
  const CaseResult& e = m_results[0];
  EXPECT_EQ(a.problem, e.problem);
  EXPECT_EQ(a.shape, e.shape);
  EXPECT_EQ(a.variant, e.variant);
  EXPECT_EQ(a.role, e.role);
  EXPECT_EQ(a.seed, e.seed);
  EXPECT_EQ(a.dist, e.dist);
  EXPECT_EQ(a.status, Status::pass);
  EXPECT_EQ(a.reference, e.reference);
  EXPECT_EQ(a.timing_note, e.timing_note);
  EXPECT_EQ(a.plan, e.plan);
  EXPECT_EQ(a.repro, e.repro);
  ASSERT_TRUE(a.check);
  EXPECT_EQ(a.check->checked, e.check->checked);
  EXPECT_EQ(a.check->mismatches, 0);
  EXPECT_DOUBLE_EQ(a.check->max_abs, e.check->max_abs);
  ASSERT_TRUE(a.timing);
  EXPECT_EQ(a.timing->timer, TimerKind::events);
  EXPECT_EQ(a.timing->l2, L2Mode::cold);
  EXPECT_EQ(a.timing->stats.n, 4);
  EXPECT_DOUBLE_EQ(a.timing->stats.median, e.timing->stats.median);
  EXPECT_DOUBLE_EQ(a.timing->stats.mean, e.timing->stats.mean);
  EXPECT_DOUBLE_EQ(a.timing->stats.min, 10.25);
  EXPECT_DOUBLE_EQ(a.timing->stats.max, 11.0);
  EXPECT_DOUBLE_EQ(a.timing->stats.stddev, e.timing->stats.stddev);
  EXPECT_DOUBLE_EQ(a.timing->stats.p10, e.timing->stats.p10);
  EXPECT_DOUBLE_EQ(a.timing->stats.p90, e.timing->stats.p90);
  EXPECT_DOUBLE_EQ(a.timing->stats.rse, e.timing->stats.rse);
  EXPECT_DOUBLE_EQ(a.timing->stats.noise, e.timing->stats.noise);
  EXPECT_DOUBLE_EQ(a.timing->stats.robust_noise, 0.026);
  EXPECT_EQ(a.timing->stats.outliers, 1);
  EXPECT_EQ(a.timing->extra_samples, 2);
  EXPECT_EQ(a.timing->stop_reason, "rse");
  EXPECT_EQ(a.timing->samples_us, e.timing->samples_us);
  EXPECT_DOUBLE_EQ(a.metrics.flops, e.metrics.flops);
  EXPECT_DOUBLE_EQ(a.metrics.bytes, e.metrics.bytes);
  EXPECT_EQ(a.metrics.tflops, e.metrics.tflops);
  EXPECT_EQ(a.metrics.gbps, e.metrics.gbps);
  EXPECT_EQ(a.metrics.sol_us, e.metrics.sol_us);
  EXPECT_EQ(a.metrics.pct_sol, e.metrics.pct_sol);
  EXPECT_EQ(a.metrics.b200_target_us, e.metrics.b200_target_us);
  EXPECT_EQ(a.metrics.speedup_vs_cublaslt, e.metrics.speedup_vs_cublaslt);

  const CaseResult& f = back[1];
  EXPECT_EQ(f.status, Status::fail);
  EXPECT_EQ(f.shape, m_results[1].shape);
  EXPECT_FALSE(f.timing);
  EXPECT_FALSE(f.metrics.tflops);
  ASSERT_TRUE(f.check);
  EXPECT_EQ(f.check->mismatches, 3);
  ASSERT_EQ(f.check->first.size(), 3u);
  EXPECT_TRUE(std::isnan(f.check->first[0].got));
  EXPECT_EQ(f.check->first[0].want, 1.5f);
  EXPECT_TRUE(std::isinf(f.check->first[1].got));
  EXPECT_EQ(f.check->first[2].group, 1);
  EXPECT_EQ(f.check->first[2].m, 6);
  EXPECT_EQ(f.check->first[2].got, 3.25f);

  const CaseResult& s = back[2];
  EXPECT_EQ(s.status, Status::skip);
  EXPECT_EQ(s.reason, "needs sm_100, device sm_90");
  EXPECT_EQ(s.dist, Dist::uniform);
  EXPECT_FALSE(s.check);
  EXPECT_EQ(read_json_results(p).size(), 3u);
}

TEST_F(ReportTest, JsonLayout) {
  const std::string p = path("r.json");
  write_json(p, run_info(), m_results);
  const auto j = nlohmann::ordered_json::parse(read_text(p));
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"schema", "tool", "command_line", "timestamp", "device", "sol",
                                            "sol_source", "sol_spec", "sol_measured", "sol_note", "settings",
                                            "results", "summary"}));
  EXPECT_EQ(j["device"]["compute_capability"], "9.0");
  EXPECT_EQ(j["device"]["driver_version"], "13.0");
  EXPECT_EQ(j["sol"]["kind"], "fp16-tensor");
  EXPECT_DOUBLE_EQ(j["sol"]["hbm_gbps"].get<double>(), 3350.0);
  EXPECT_EQ(j["settings"]["seed"], 1111);
  EXPECT_EQ(j["settings"]["config"], "configs/smoke.json");
  EXPECT_EQ(j["summary"]["pass"], 1);
  EXPECT_EQ(j["summary"]["fail"], 1);
  EXPECT_EQ(j["summary"]["skip"], 1);
  EXPECT_EQ(j["summary"]["error"], 0);
  EXPECT_TRUE(j["results"][2]["timing"].is_null());
  EXPECT_TRUE(j["results"][2]["metrics"]["tflops"].is_null());

  RunInfo bare = run_info();
  bare.device.reset();
  bare.sol.reset();
  write_json(p, bare, {});
  const auto k = nlohmann::ordered_json::parse(read_text(p));
  EXPECT_TRUE(k["device"].is_null());
  EXPECT_TRUE(k["sol"].is_null());
  EXPECT_TRUE(k["sol_note"].is_string());
  EXPECT_TRUE(read_json_results(p).empty());
}

TEST_F(ReportTest, SchemaMismatchRejected) {
  const std::string p = path("other.json");
  std::ofstream(p) << R"({"schema": "nvbench/1", "results": []})";
  try {
    read_json_results(p);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(p), std::string::npos) << msg;
    EXPECT_NE(msg.find("'nvbench/1'"), std::string::npos) << msg;
    EXPECT_NE(msg.find(kReportSchema), std::string::npos) << msg;
  }
  std::ofstream(p) << R"({"results": []})";
  EXPECT_THROW(read_json_results(p), std::runtime_error);
  std::ofstream(p) << "{ not json";
  EXPECT_THROW(read_json_results(p), std::runtime_error);
  EXPECT_THROW(read_json_results(path("absent.json")), std::runtime_error);
}

TEST_F(ReportTest, CorruptResultRejected) {
  const std::string p = path("r.json");
  write_json(p, run_info(), m_results);
  auto j = nlohmann::ordered_json::parse(read_text(p));
  j["results"][1]["status"] = "MAYBE";
  std::ofstream(p) << j.dump();
  try {
    read_json_results(p);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("results[1].status"), std::string::npos) << e.what();
  }
}

TEST_F(ReportTest, CsvOneLinePerResult) {
  const std::string p = path("r.csv");
  write_csv(p, run_info(), m_results);
  EXPECT_EQ(temp_files(m_dir), 0);
  const std::string text = read_text(p);
  std::vector<std::string> lines;
  std::stringstream ss(text);
  for (std::string line; std::getline(ss, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), m_results.size() + 1);
  EXPECT_EQ(lines[0].rfind("problem,shape,variant,role,seed,dist,status,reason", 0), 0u) << lines[0];
  EXPECT_EQ(lines[1].rfind("gemm,128x7168x16384,cublaslt,benchmark,1111,gpumode,PASS,", 0), 0u) << lines[1];
  // The group shape has commas, so it is quoted; quotes inside the repro are doubled.
  EXPECT_NE(lines[2].find("\"80x4096x7168,176x4096x7168,128x4096x7168,72x4096x7168\""), std::string::npos);
  EXPECT_NE(lines[2].find("\"\"80x4096x7168,176x4096x7168\"\""), std::string::npos);
  EXPECT_NE(lines[3].find("SKIP,\"needs sm_100, device sm_90\""), std::string::npos) << lines[3];
  // Every row has as many fields as the header (count commas outside quotes).
  auto fields = [](const std::string& line) {
    int n = 1;
    bool quoted = false;
    for (char c : line) {
      if (c == '"') quoted = !quoted;
      else if (c == ',' && !quoted) ++n;
    }
    return n;
  };
  for (const auto& line : lines) EXPECT_EQ(fields(line), fields(lines[0])) << line;
}

TEST_F(ReportTest, MarkdownHasTheRows) {
  const std::string p = path("r.md");
  write_markdown(p, run_info(), m_results);
  EXPECT_EQ(temp_files(m_dir), 0);
  const std::string text = read_text(p);
  EXPECT_EQ(text.rfind("# nvfp4bench results: NVIDIA H100 80GB HBM3", 0), 0u) << text;
  EXPECT_NE(text.find("Settings: seed 1111"), std::string::npos) << text;
  EXPECT_NE(text.find("| problem | shape | variant | status | median us |"), std::string::npos) << text;
  EXPECT_NE(text.find("| gemm | 128x7168x16384 | cublaslt | PASS | 10.625 |"), std::string::npos) << text;
  EXPECT_NE(text.find("| group_gemm | 80x4096x7168,176x4096x7168,128x4096x7168,72x4096x7168 | naive | FAIL |"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("3 of 1000 mismatched"), std::string::npos) << text;
  EXPECT_NE(text.find("| gemv | 7168x16384x1 | tensor-core | SKIP |"), std::string::npos) << text;
  EXPECT_NE(text.find("1 PASS, 1 FAIL, 1 SKIP, 0 ERROR"), std::string::npos) << text;
}

TEST_F(ReportTest, TerminalTable) {
  std::ostringstream os;
  print_table(os, m_results);
  const std::string text = os.str();
  std::vector<std::string> lines;
  std::stringstream ss(text);
  for (std::string line; std::getline(ss, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 5u) << text;
  EXPECT_EQ(lines[0].rfind("problem", 0), 0u);
  // Columns line up: "status" starts at the same offset as each row's status word.
  const size_t col = lines[0].find("status");
  EXPECT_EQ(lines[1].substr(col, 4), "PASS") << text;
  EXPECT_EQ(lines[2].substr(col, 4), "FAIL") << text;
  EXPECT_EQ(lines[3].substr(col, 4), "SKIP") << text;
  EXPECT_NE(lines[1].find("10.625"), std::string::npos);
  EXPECT_NE(lines[1].find("1.00x"), std::string::npos);
  EXPECT_NE(lines[2].find("3 of 1000 mismatched; first at group 1 l 0 m 5 n 7: got nan want 1.5"), std::string::npos)
      << lines[2];
  EXPECT_NE(lines[2].find("(4 groups)"), std::string::npos) << lines[2];
  EXPECT_NE(lines[3].find("needs sm_100, device sm_90"), std::string::npos);
  EXPECT_EQ(lines[4], "1 PASS, 1 FAIL, 1 SKIP, 0 ERROR");
}

TEST_F(ReportTest, FailedWriteLeavesTargetUntouched) {
  // The target is a non-empty directory: the rename fails, the directory stays as it was and
  // the temporary file is removed.
  const std::string target = path("busy");
  fs::create_directory(target);
  std::ofstream(target + "/keep") << "x";
  try {
    write_json(target, run_info(), m_results);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(target), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_directory(target));
  EXPECT_TRUE(fs::exists(target + "/keep"));
  EXPECT_EQ(temp_files(m_dir), 0);
  EXPECT_THROW(write_csv(path("missing/r.csv"), run_info(), m_results), std::runtime_error);
  EXPECT_THROW(write_markdown(target, run_info(), m_results), std::runtime_error);
  EXPECT_EQ(temp_files(m_dir), 0);

  // A failure while producing the content keeps an existing target's old content.
  const std::string old = path("old.txt");
  std::ofstream(old) << "old content";
  EXPECT_THROW(write_file_atomic(old, [](std::ostream& out) {
                 out << "partial";
                 throw std::runtime_error("boom");
               }),
               std::runtime_error);
  EXPECT_EQ(read_text(old), "old content");
  EXPECT_EQ(temp_files(m_dir), 0);
}

TEST_F(ReportTest, AtomicWriteReplacesTarget) {
  const std::string p = path("r.json");
  std::ofstream(p) << "stale";
  write_json(p, run_info(), m_results);
  EXPECT_EQ(read_json_results(p).size(), 3u);
  EXPECT_EQ(temp_files(m_dir), 0);
}

TEST_F(ReportTest, CheckWritable) {
  EXPECT_NO_THROW(check_writable(path("x.json"), "--json"));
  try {
    check_writable(path("out/x.json"), "--json");
    FAIL() << "no exception";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--json " + path("out/x.json") + ": directory '" + path("out") + "' does not exist");
  }
  EXPECT_THROW(check_writable(m_dir, "--csv"), UsageError);
  EXPECT_THROW(check_writable("", "--csv"), UsageError);
}

// ---- the measured decode+wgmma ceiling (Calibration, % ceiling) ----

Calibration hopper_calibration() {
  Calibration c;
  c.hbm_read_gbps = 3010.5;
  c.fp16_tensor_tflops = 702.25;
  c.decode_wgmma_tflops = 612.5;
  c.wgmma_rs_tflops = 655.75;
  c.decode_mma_tflops = 401.5;
  c.mma_sync_tflops = 540.25;
  c.notes = "hbm: ...; fp16: ...; fp4: not measured (...); decode+wgmma: ...; wgmma rs: ...; decode+mma.sync: ...";
  return c;
}

TEST(PctCeiling, OnlyWithTheCeilingAndOnlyForTheGemmFamily) {
  const std::optional<Calibration> cal = hopper_calibration();
  for (Problem p : {Problem::gemm, Problem::dual_gemm, Problem::group_gemm}) {
    ASSERT_TRUE(pct_of_ceiling(p, 306.25, cal)) << to_string(p);
    EXPECT_DOUBLE_EQ(*pct_of_ceiling(p, 306.25, cal), 50.0) << to_string(p);
  }
  EXPECT_FALSE(pct_of_ceiling(Problem::gemv, 306.25, cal)) << "gemv is memory-bound";
  EXPECT_FALSE(pct_of_ceiling(Problem::gemm, std::nullopt, cal)) << "not timed";
  EXPECT_FALSE(pct_of_ceiling(Problem::gemm, 306.25, std::nullopt)) << "no calibration";
  Calibration off_hopper = *cal;
  off_hopper.decode_wgmma_tflops.reset();
  EXPECT_FALSE(pct_of_ceiling(Problem::gemm, 306.25, off_hopper)) << "calibration without the ceiling";
}

TEST_F(ReportTest, CalibrationAndPctCeilingRoundTrip) {
  RunInfo info = run_info();
  info.calibration = hopper_calibration();
  m_results[0].metrics.pct_ceiling = 0.46;
  const std::string p = path("cal.json");
  write_json(p, info, m_results);

  const auto j = nlohmann::ordered_json::parse(read_text(p));
  std::vector<std::string> keys;
  for (const auto& [k, v] : j["sol_measured"].items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"hbm_gbps", "fp16_tensor_tflops", "fp4_tensor_tflops",
                                            "decode_wgmma_tflops", "wgmma_rs_tflops", "decode_mma_tflops",
                                            "mma_sync_tflops", "notes"}));
  EXPECT_TRUE(j["sol_measured"]["fp4_tensor_tflops"].is_null());
  EXPECT_NE(j["sol_note"].get<std::string>().find("pct_ceiling"), std::string::npos) << j["sol_note"];
  EXPECT_TRUE(j["results"][1]["metrics"]["pct_ceiling"].is_null()) << "absent is null, never 0";

  const ReportFile f = read_json_report(p);
  ASSERT_TRUE(f.info.calibration);
  EXPECT_EQ(f.info.calibration->decode_wgmma_tflops, 612.5);
  EXPECT_EQ(f.info.calibration->wgmma_rs_tflops, 655.75);
  EXPECT_EQ(f.info.calibration->decode_mma_tflops, 401.5);
  EXPECT_EQ(f.info.calibration->mma_sync_tflops, 540.25);
  EXPECT_FALSE(f.info.calibration->fp4_tensor_tflops);
  EXPECT_EQ(f.info.calibration->notes, info.calibration->notes);
  EXPECT_EQ(f.results[0].metrics.pct_ceiling, 0.46);
  EXPECT_FALSE(f.results[1].metrics.pct_ceiling);

  // A calibration without the ceiling (not CC 9.0) writes nulls and reads back nullopt.
  info.calibration->decode_wgmma_tflops.reset();
  info.calibration->wgmma_rs_tflops.reset();
  write_json(p, info, m_results);
  const auto k = nlohmann::ordered_json::parse(read_text(p));
  EXPECT_TRUE(k["sol_measured"]["decode_wgmma_tflops"].is_null());
  EXPECT_EQ(k["sol_note"].get<std::string>().find("pct_ceiling"), std::string::npos) << k["sol_note"];
  const ReportFile g = read_json_report(p);
  ASSERT_TRUE(g.info.calibration);
  EXPECT_FALSE(g.info.calibration->decode_wgmma_tflops);
  EXPECT_FALSE(g.info.calibration->wgmma_rs_tflops);
}

// Reports written before the ceiling have neither the calibration fields nor pct_ceiling.
TEST_F(ReportTest, ReportWithoutTheCeilingLoads) {
  const std::string committed =
      std::string(NVFP4_SOURCE_DIR) + "/results/2026-11-21_nvidia-h200_b740fe87c384_sol-measured.json";
  const ReportFile old = read_json_report(committed);
  ASSERT_TRUE(old.info.calibration) << "that run calibrated (--sol measured)";
  EXPECT_GT(old.info.calibration->fp16_tensor_tflops, 0.0);
  EXPECT_FALSE(old.info.calibration->decode_wgmma_tflops);
  EXPECT_FALSE(old.info.calibration->wgmma_rs_tflops);
  EXPECT_FALSE(old.info.calibration->decode_mma_tflops);
  EXPECT_FALSE(old.info.calibration->mma_sync_tflops);
  ASSERT_FALSE(old.results.empty());
  for (const CaseResult& r : old.results) EXPECT_FALSE(r.metrics.pct_ceiling);

  // The same with a report of this version whose new keys are taken out.
  RunInfo info = run_info();
  info.calibration = hopper_calibration();
  const std::string p = path("old.json");
  write_json(p, info, m_results);
  auto j = nlohmann::ordered_json::parse(read_text(p));
  j["sol_measured"].erase("decode_wgmma_tflops");
  j["sol_measured"].erase("wgmma_rs_tflops");
  for (auto& r : j["results"]) {
    r["metrics"].erase("pct_ceiling");
    r.erase("plan");
  }
  std::ofstream(p) << j.dump();
  const ReportFile f = read_json_report(p);
  ASSERT_TRUE(f.info.calibration);
  EXPECT_FALSE(f.info.calibration->decode_wgmma_tflops);
  EXPECT_DOUBLE_EQ(f.info.calibration->fp16_tensor_tflops, 702.25);
  for (const CaseResult& r : f.results) {
    EXPECT_FALSE(r.metrics.pct_ceiling);
    EXPECT_EQ(r.plan, "") << "reports before the plan field load with an empty plan";
  }
}

// The %ceiling column is in the terminal, Markdown and CSV tables when a result has one; the
// terminal and Markdown tables of other reports keep their columns.
TEST_F(ReportTest, PctCeilingColumn) {
  std::ostringstream plain;
  print_table(plain, m_results);
  EXPECT_EQ(plain.str().find("%ceiling"), std::string::npos) << plain.str();
  write_markdown(path("plain.md"), run_info(), m_results);
  EXPECT_EQ(read_text(path("plain.md")).find("%ceiling"), std::string::npos);

  m_results[0].metrics.pct_ceiling = 0.46;
  std::ostringstream os;
  print_table(os, m_results);
  std::vector<std::string> lines;
  std::stringstream ss(os.str());
  for (std::string line; std::getline(ss, line);) lines.push_back(line);
  ASSERT_GE(lines.size(), 4u);
  const size_t at = lines[0].find("%ceiling");
  ASSERT_NE(at, std::string::npos) << os.str();
  EXPECT_LT(lines[0].find("%SOL"), at);
  const size_t end = at + std::string("%ceiling").size();  // right-aligned under its title
  EXPECT_EQ(lines[1].substr(end - 4, 4), " 0.5") << os.str();
  EXPECT_EQ(lines[3].substr(end - 1, 1), "-") << "SKIP row: no value" << os.str();

  write_markdown(path("c.md"), run_info(), m_results);
  const std::string md = read_text(path("c.md"));
  EXPECT_NE(md.find("| %SOL | %ceiling | x cublaslt |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 71.2 | 0.5 | 1.00x |"), std::string::npos) << md;

  write_csv(path("c.csv"), run_info(), m_results);
  const std::string csv = read_text(path("c.csv"));
  EXPECT_NE(csv.find(",pct_sol,pct_ceiling,b200_target_us,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",71.2,0.46,8.994,"), std::string::npos) << csv;
}

// ---- NPY ----

TEST_F(ReportTest, NpyHeaderAndData) {
  const std::vector<uint16_t> halves = {0x3C00, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600};
  const std::string p = path("c.npy");
  write_npy(p, "<f2", {2, 3}, halves.data(), halves.size() * 2);
  EXPECT_EQ(temp_files(m_dir), 0);
  const std::string text = read_text(p);
  ASSERT_GE(text.size(), 10u);
  EXPECT_EQ(text.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const size_t hlen = static_cast<unsigned char>(text[8]) | (static_cast<unsigned char>(text[9]) << 8);
  EXPECT_EQ((10 + hlen) % 64, 0u);
  const std::string dict = text.substr(10, hlen);
  EXPECT_EQ(dict.rfind("{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }", 0), 0u) << dict;
  EXPECT_EQ(dict.back(), '\n');
  ASSERT_EQ(text.size(), 10 + hlen + 12);
  EXPECT_EQ(std::memcmp(text.data() + 10 + hlen, halves.data(), 12), 0);

  EXPECT_NE(npy_header("|u1", {5}).find("'shape': (5,)"), std::string::npos);
  EXPECT_NE(npy_header("<f4", {}).find("'shape': ()"), std::string::npos);
  EXPECT_NE(npy_header("<f4", {2, 128, 8}).find("'shape': (2, 128, 8)"), std::string::npos);
  EXPECT_EQ(npy_header("<f4", {2, 128, 8}).size() % 64, 0u);

  const uint8_t bytes[4] = {1, 2, 3, 4};
  EXPECT_THROW(write_npy(path("bad.npy"), "|u1", {5}, bytes, 4), std::invalid_argument);
  EXPECT_THROW(write_npy(path("bad.npy"), "<c8", {4}, bytes, 4), std::invalid_argument);
  EXPECT_FALSE(fs::exists(path("bad.npy")));
  EXPECT_THROW(write_npy(path("no/dir.npy"), "|u1", {4}, bytes, 4), std::runtime_error);
}

}  // namespace
}  // namespace nvfp4
