// SPDX-License-Identifier: Apache-2.0
// json_reader.cpp: reads a JSON report back (round-trip tests, compare, update_readme).
#include <fmt/format.h>

#include <cmath>
#include <fstream>
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
  r.metrics.b200_target_us = rd.opt_number(m, "b200_target_us", w);
  r.metrics.speedup_vs_cublaslt = rd.opt_number(m, "speedup_vs_cublaslt", w);
  if (m.contains("floor_us")) r.metrics.floor_us = rd.opt_number(m, "floor_us", w);
  if (m.contains("vs_floor")) r.metrics.vs_floor = rd.opt_number(m, "vs_floor", w);
  return r;
}

}  // namespace

ReportFile read_json_report(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open the report", path));
  Json j;
  try {
    j = Json::parse(in);
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
  return out;
}

std::vector<CaseResult> read_json_results(const std::string& path) { return read_json_report(path).results; }

}  // namespace nvfp4
