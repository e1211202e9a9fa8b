// SPDX-License-Identifier: Apache-2.0
// json_reader.cpp: reads a JSON report back (round-trip tests, compare, update_readme).
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "report/cells.hpp"
#include "report/report.hpp"
#include "report/report_read.hpp"

namespace nvfp4 {
namespace {

using Json = nlohmann::ordered_json;
using report::one_line;

class Reader {
 public:
  explicit Reader(std::string path) : m_path(std::move(path)) {}

  [[noreturn]] void fail(const std::string& field, std::string_view rule) const {
    throw std::runtime_error(fmt::format("{}: {}: {}", m_path, field, rule));
  }
  const Json& at(const Json& j, const std::string& key, const std::string& where) const {
    if (!j.is_object() || !j.contains(key)) fail(where + key, "missing");
    return j[key];
  }
  std::string str(const Json& j, const std::string& key, const std::string& where) const {
    const Json& v = at(j, key, where);
    if (!v.is_string()) fail(where + key, "must be a string");
    return v.get<std::string>();
  }
  int64_t integer(const Json& j, const std::string& key, const std::string& where) const {
    const Json& v = at(j, key, where);
    if (!v.is_number_integer()) fail(where + key, "must be an integer");
    return v.get<int64_t>();
  }
  uint64_t uinteger(const Json& j, const std::string& key, const std::string& where) const {
    const Json& v = at(j, key, where);
    if (!v.is_number_unsigned()) fail(where + key, "must be an integer >= 0");
    return v.get<uint64_t>();
  }
  // null reads as NaN (non-finite values are written as null).
  double number(const Json& j, const std::string& key, const std::string& where) const {
    const Json& v = at(j, key, where);
    if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (!v.is_number()) fail(where + key, "must be a number");
    return v.get<double>();
  }
  std::optional<double> opt_number(const Json& j, const std::string& key, const std::string& where) const {
    const Json& v = at(j, key, where);
    if (v.is_null()) return std::nullopt;
    if (!v.is_number()) fail(where + key, "must be a number or null");
    return v.get<double>();
  }
  float float_value(const Json& j, const std::string& key, const std::string& where) const {
    const Json& v = at(j, key, where);
    if (v.is_number()) return v.get<float>();
    if (v.is_string()) {
      const std::string s = v.get<std::string>();
      if (s == "NaN") return std::numeric_limits<float>::quiet_NaN();
      if (s == "Infinity") return std::numeric_limits<float>::infinity();
      if (s == "-Infinity") return -std::numeric_limits<float>::infinity();
    }
    if (v.is_null()) return std::numeric_limits<float>::quiet_NaN();
    fail(where + key, "must be a number, \"NaN\", \"Infinity\" or \"-Infinity\"");
  }

  const std::string& path() const { return m_path; }

 private:
  std::string m_path;
};

// The clock record (measure/timing.hpp); the throttle-reason mask is only kept as text in the
// JSON and is not read back.
ClockRecord read_clocks(const Reader& rd, const Json& c, const std::string& w) {
  ClockRecord ck;
  if (!c.is_object()) rd.fail(w.substr(0, w.size() - 1), "must be an object");
  if (!c.contains("before")) {
    if (c.contains("note")) ck.note = rd.str(c, "note", w);
    return ck;
  }
  auto sample = [&](const char* key) -> std::optional<ClockSample> {
    const Json& v = rd.at(c, key, w);
    if (v.is_null()) return std::nullopt;
    const std::string ws = w + key + ".";
    ClockSample cs;
    cs.sm_mhz = static_cast<int>(rd.integer(v, "sm_mhz", ws));
    cs.mem_mhz = static_cast<int>(rd.integer(v, "mem_mhz", ws));
    cs.temp_c = static_cast<int>(rd.integer(v, "temp_c", ws));
    cs.power_w = rd.opt_number(v, "power_w", ws).value_or(-1);
    return cs;
  };
  ck.before = sample("before");
  ck.after = sample("after");
  ck.reference_sm_mhz = static_cast<int>(rd.integer(c, "reference_sm_mhz", w));
  ck.min_sm_mhz = static_cast<int>(rd.integer(c, "min_sm_mhz", w));
  ck.throttled_samples = static_cast<int>(rd.integer(c, "throttled_samples", w));
  return ck;
}

CaseResult read_result(const Reader& rd, const Json& j, const std::string& where) {
  if (!j.is_object()) rd.fail(where.substr(0, where.size() - 1), "must be an object");
  CaseResult r;
  const std::string problem = rd.str(j, "problem", where);
  const auto p = parse_problem(problem);
  if (!p) rd.fail(where + "problem", fmt::format("unknown problem '{}'", problem));
  r.problem = *p;
  r.shape = rd.str(j, "shape", where);
  r.variant = rd.str(j, "variant", where);
  r.role = rd.str(j, "role", where);
  r.seed = rd.uinteger(j, "seed", where);
  const std::string dist = rd.str(j, "dist", where);
  if (!parse_dist(dist, r.dist)) rd.fail(where + "dist", fmt::format("unknown distribution '{}'", dist));
  const std::string status = rd.str(j, "status", where);
  bool found = false;
  for (Status s : {Status::pass, Status::fail, Status::skip, Status::error})
    if (to_string(s) == status) r.status = s, found = true;
  if (!found) rd.fail(where + "status", fmt::format("unknown status '{}'", status));
  r.reason = rd.str(j, "reason", where);
  r.reference = rd.str(j, "reference", where);
  r.timing_note = rd.str(j, "timing_note", where);
  if (j.contains("plan")) r.plan = rd.str(j, "plan", where);  // absent in reports before it
  r.repro = rd.str(j, "repro", where);

  if (const Json& c = rd.at(j, "check", where); !c.is_null()) {
    const std::string w = where + "check.";
    CheckResult cr;
    cr.checked = rd.integer(c, "checked", w);
    cr.mismatches = rd.integer(c, "mismatches", w);
    cr.with_bound = rd.str(c, "rule", w) != "atol+rtol*|ref|";
    cr.max_abs = rd.number(c, "max_abs", w);
    cr.max_rel = rd.number(c, "max_rel", w);
    const Json& first = rd.at(c, "first", w);
    if (!first.is_array()) rd.fail(w + "first", "must be an array");
    for (size_t i = 0; i < first.size(); ++i) {
      const std::string wi = fmt::format("{}first[{}].", w, i);
      Mismatch m;
      m.group = rd.integer(first[i], "group", wi);
      m.l = rd.integer(first[i], "l", wi);
      m.m = rd.integer(first[i], "m", wi);
      m.n = rd.integer(first[i], "n", wi);
      m.got = rd.float_value(first[i], "got", wi);
      m.want = rd.float_value(first[i], "want", wi);
      cr.first.push_back(m);
    }
    r.check = std::move(cr);
  }
  if (const Json& t = rd.at(j, "timing", where); !t.is_null()) {
    const std::string w = where + "timing.";
    TimingResult tr;
    if (const std::string timer = rd.str(t, "timer", w); !parse_timer(timer, tr.timer))
      rd.fail(w + "timer", fmt::format("unknown timer '{}'", timer));
    const std::string l2 = rd.str(t, "l2", w);
    if (!parse_l2(l2, tr.l2)) rd.fail(w + "l2", fmt::format("unknown L2 mode '{}'", l2));
    tr.batch = static_cast<int>(rd.integer(t, "batch", w));
    SampleStats& s = tr.stats;
    s.n = static_cast<int>(rd.integer(t, "samples", w));
    s.median = rd.number(t, "median_us", w);
    s.mean = rd.number(t, "mean_us", w);
    s.min = rd.number(t, "min_us", w);
    s.max = rd.number(t, "max_us", w);
    s.stddev = rd.number(t, "stddev_us", w);
    s.p10 = rd.number(t, "p10_us", w);
    s.p90 = rd.number(t, "p90_us", w);
    s.rse = rd.number(t, "rse", w);
    s.noise = rd.number(t, "noise", w);
    // Since the robust-noise rule; absent from older reports.
    if (t.contains("robust_noise")) s.robust_noise = rd.number(t, "robust_noise", w);
    if (t.contains("outliers")) s.outliers = static_cast<int>(rd.integer(t, "outliers", w));
    if (t.contains("extra_samples")) tr.extra_samples = static_cast<int>(rd.integer(t, "extra_samples", w));
    tr.stop_reason = rd.str(t, "stop_reason", w);
    if (t.contains("clocks")) tr.clocks = read_clocks(rd, t["clocks"], w + "clocks.");
    if (t.contains("samples_us")) {
      const Json& v = t["samples_us"];
      if (!v.is_array()) rd.fail(w + "samples_us", "must be an array");
      for (const Json& x : v) tr.samples_us.push_back(x.is_number() ? x.get<double>() : std::nan(""));
    }
    r.timing = std::move(tr);
  }
  const Json& m = rd.at(j, "metrics", where);
  const std::string w = where + "metrics.";
  r.metrics.flops = rd.number(m, "flops", w);
  r.metrics.bytes = rd.number(m, "bytes", w);
  r.metrics.tflops = rd.opt_number(m, "tflops", w);
  r.metrics.gbps = rd.opt_number(m, "gbps", w);
  r.metrics.sol_us = rd.opt_number(m, "sol_us", w);
  r.metrics.pct_sol = rd.opt_number(m, "pct_sol", w);
  if (m.contains("pct_ceiling")) r.metrics.pct_ceiling = rd.opt_number(m, "pct_ceiling", w);  // since the ceiling
  r.metrics.b200_target_us = rd.opt_number(m, "b200_target_us", w);
  r.metrics.speedup_vs_cublaslt = rd.opt_number(m, "speedup_vs_cublaslt", w);
  if (m.contains("floor_us")) r.metrics.floor_us = rd.opt_number(m, "floor_us", w);
  if (m.contains("vs_floor")) r.metrics.vs_floor = rd.opt_number(m, "vs_floor", w);
  return r;
}

// "13.0" -> 13000 (CUDA's 1000*major + 10*minor); null -> 0.
int cuda_version_number(const Reader& rd, const Json& j, const std::string& key, const std::string& where) {
  const Json& v = rd.at(j, key, where);
  if (v.is_null()) return 0;
  int major = 0, minor = 0;
  if (!v.is_string() || std::sscanf(v.get<std::string>().c_str(), "%d.%d", &major, &minor) != 2)
    rd.fail(where + key, "must be a version \"MAJOR.MINOR\" or null");
  return 1000 * major + 10 * minor;
}

std::optional<SolRates> read_rates(const Reader& rd, const Json& j, const std::string& key) {
  const Json& v = rd.at(j, key, "");
  if (v.is_null()) return std::nullopt;
  const std::string w = key + ".";
  return SolRates{rd.str(v, "gpu", w), rd.number(v, "hbm_gbps", w) * 1e9, rd.number(v, "tensor_tflops", w) * 1e12,
                  rd.str(v, "kind", w)};
}

DeviceInfo read_device(const Reader& rd, const Json& d) {
  const std::string w = "device.";
  DeviceInfo dev;
  dev.name = rd.str(d, "name", w);
  if (std::sscanf(rd.str(d, "compute_capability", w).c_str(), "%d.%d", &dev.cc_major, &dev.cc_minor) != 2)
    rd.fail(w + "compute_capability", "must be \"MAJOR.MINOR\"");
  dev.sms = static_cast<int>(rd.integer(d, "sms", w));
  dev.l2_bytes = rd.integer(d, "l2_bytes", w);
  dev.mem_bytes = rd.integer(d, "memory_bytes", w);
  dev.sm_clock_khz = static_cast<int>(std::lround(rd.number(d, "sm_clock_mhz", w) * 1000));
  dev.mem_clock_khz = static_cast<int>(std::lround(rd.number(d, "mem_clock_mhz", w) * 1000));
  dev.driver_version = cuda_version_number(rd, d, "driver_version", w);
  dev.runtime_version = cuda_version_number(rd, d, "cuda_runtime_version", w);
  if (const Json& v = rd.at(d, "cublaslt_version", w); v.is_string()) {
    unsigned a = 0, b = 0, c = 0;
    if (std::sscanf(v.get<std::string>().c_str(), "%u.%u.%u", &a, &b, &c) == 3) dev.cublaslt_version = a * 10000 + b * 100 + c;
  }
  return dev;
}

// settings{...} into the plan (outputs and cases stay empty) and RunInfo::seed / dist.
void read_settings(const Reader& rd, const Json& s, RunInfo& info) {
  const std::string w = "settings.";
  RunPlan& p = info.plan;
  if (const Json& c = rd.at(s, "config", w); !c.is_null()) p.config_path = rd.str(s, "config", w);
  if (s.contains("seed")) info.seed = rd.uinteger(s, "seed", w);
  if (s.contains("dist")) {
    Dist d;
    if (!parse_dist(rd.str(s, "dist", w), d)) rd.fail(w + "dist", "unknown distribution");
    info.dist = d;
  }
  const Json& tol = rd.at(s, "tolerance", w);
  p.tolerance.rtol = rd.number(tol, "rtol", w + "tolerance.");
  p.tolerance.atol = rd.number(tol, "atol", w + "tolerance.");
  const Json& t = rd.at(s, "timing", w);
  const std::string wt = w + "timing.";
  p.timing_enabled = rd.at(t, "enabled", wt).get<bool>();
  if (!parse_timer(rd.str(t, "timer", wt), p.timing.timer)) rd.fail(wt + "timer", "unknown timer");
  if (t.contains("timer_reason")) p.timer_reason = rd.str(t, "timer_reason", wt);  // since the cupti default
  if (p.timer_reason == "built-in default") p.timer_reason.clear();  // the writer's text for ""
  if (t.contains("module_loading") && !t.at("module_loading").is_null())  // since eager loading by default
    p.module_loading = rd.str(t, "module_loading", wt);
  p.timing.batch = static_cast<int>(rd.integer(t, "batch", wt));
  if (!parse_l2(rd.str(t, "l2", wt), p.timing.l2)) rd.fail(wt + "l2", "unknown L2 mode");
  p.keep_samples = rd.at(t, "keep_samples", wt).get<bool>();
  p.floor_enabled = rd.at(t, "floor", wt).get<bool>();
  p.timing.warmup = static_cast<int>(rd.integer(t, "warmup", wt));
  p.timing.min_samples = static_cast<int>(rd.integer(t, "min_samples", wt));
  p.timing.max_samples = static_cast<int>(rd.integer(t, "max_samples", wt));
  p.timing.min_time_s = rd.number(t, "min_time_s", wt);
  p.timing.max_time_s = rd.number(t, "max_time_s", wt);
  p.timing.target_rse = rd.number(t, "target_rse", wt);
  for (const Json& v : rd.at(s, "variants", w))
    if (v.is_string()) p.variants.push_back(v.get<std::string>());
  p.device = static_cast<int>(rd.integer(s, "device_index", w));
}

void read_info(const Reader& rd, const Json& j, const ReportHeader& h, RunInfo& info) {
  info.tool_version = h.tool_version;
  info.git_sha = h.git_sha;
  info.command_line = h.command_line;
  info.timestamp = h.timestamp;
  if (const Json& dev = rd.at(j, "device", ""); !dev.is_null()) info.device = read_device(rd, dev);
  info.sol = read_rates(rd, j, "sol");
  info.sol_spec = read_rates(rd, j, "sol_spec");
  info.sol_source = rd.str(j, "sol_source", "");
  if (const Json& m = rd.at(j, "sol_measured", ""); !m.is_null()) {
    Calibration c;
    c.hbm_read_gbps = rd.number(m, "hbm_gbps", "sol_measured.");
    c.fp16_tensor_tflops = rd.number(m, "fp16_tensor_tflops", "sol_measured.");
    c.fp4_tensor_tflops = rd.opt_number(m, "fp4_tensor_tflops", "sol_measured.");
    // The wgmma path's ceiling, absent from older reports.
    if (m.contains("decode_wgmma_tflops"))
      c.decode_wgmma_tflops = rd.opt_number(m, "decode_wgmma_tflops", "sol_measured.");
    if (m.contains("wgmma_rs_tflops")) c.wgmma_rs_tflops = rd.opt_number(m, "wgmma_rs_tflops", "sol_measured.");
    // The mma.sync path's, absent from older reports still.
    if (m.contains("decode_mma_tflops")) c.decode_mma_tflops = rd.opt_number(m, "decode_mma_tflops", "sol_measured.");
    if (m.contains("mma_sync_tflops")) c.mma_sync_tflops = rd.opt_number(m, "mma_sync_tflops", "sol_measured.");
    c.notes = rd.str(m, "notes", "sol_measured.");
    info.calibration = c;
  }
  read_settings(rd, rd.at(j, "settings", ""), info);
  if (j.contains("plugins") && j["plugins"].is_array())
    for (const Json& p : j["plugins"]) {
      PluginRecord r{rd.str(p, "name", "plugins[]."), rd.str(p, "path", "plugins[]."),
                     static_cast<int>(rd.integer(p, "abi_version", "plugins[].")), {}};
      for (const Json& v : rd.at(p, "variants", "plugins[]."))
        if (v.is_string()) r.variants.push_back(v.get<std::string>());
      info.plugins.push_back(std::move(r));
    }
  if (j.contains("submissions") && j["submissions"].is_array())
    for (const Json& s : j["submissions"]) {
      SubmissionRecord r{rd.str(s, "name", "submissions[]."), rd.str(s, "path", "submissions[]."),
                         rd.str(s, "python", "submissions[]."), rd.str(s, "torch", "submissions[]."),
                         rd.str(s, "skip", "submissions[]."), {}};
      for (const Json& p : rd.at(s, "problems", "submissions[]."))
        if (p.is_string()) r.problems.push_back(p.get<std::string>());
      info.submissions.push_back(std::move(r));
    }
}

}  // namespace

ReportFile read_json_report(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open the report", path));
  std::stringstream text;
  text << in.rdbuf();
  return parse_json_report(text.str(), path);
}

ReportFile parse_json_report(const std::string& text, const std::string& path) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(one_line(fmt::format("{}: not valid JSON: {}", path, e.what())));
  }
  const Reader rd(path);
  if (!j.is_object()) rd.fail("(top level)", "must be a JSON object");
  ReportFile out;
  if (!j.contains("schema") || !j["schema"].is_string())
    throw std::runtime_error(fmt::format("{}: no \"schema\" string: not an nvfp4bench report ({})", path, kReportSchema));
  out.header.schema = j["schema"].get<std::string>();
  if (out.header.schema != kReportSchema)
    throw std::runtime_error(fmt::format("{}: schema '{}' is not supported (expected '{}')", path, out.header.schema,
                                         kReportSchema));
  const Json& tool = rd.at(j, "tool", "");
  out.header.tool_name = rd.str(tool, "name", "tool.");
  out.header.tool_version = rd.str(tool, "version", "tool.");
  out.header.git_sha = rd.str(tool, "git_sha", "tool.");
  out.header.command_line = rd.str(j, "command_line", "");
  out.header.timestamp = rd.str(j, "timestamp", "");
  if (const Json& dev = rd.at(j, "device", ""); !dev.is_null()) out.header.device_name = rd.str(dev, "name", "device.");
  const Json& results = rd.at(j, "results", "");
  if (!results.is_array()) rd.fail("results", "must be an array");
  for (size_t i = 0; i < results.size(); ++i)
    out.results.push_back(read_result(rd, results[i], fmt::format("results[{}].", i)));
  try {
    read_info(rd, j, out.header, out.info);
  } catch (const nlohmann::json::exception& e) {  // a value of the wrong type (bool, array)
    throw std::runtime_error(one_line(fmt::format("{}: {}", path, e.what())));
  }
  out.json = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return out;
}

std::vector<CaseResult> read_json_results(const std::string& path) { return read_json_report(path).results; }

}  // namespace nvfp4
