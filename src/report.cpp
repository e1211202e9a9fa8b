// SPDX-License-Identifier: Apache-2.0
// report.cpp: printers only format, they never measure. Terminal table, JSON (schema
// "nvfp4bench.report/1", read back by read_json_report), CSV and Markdown. Files are written
// through write_file_atomic (temp file + rename).
//
// JSON layout (keys in this order; absent values are null):
//   schema, tool{name, version, git_sha}, command_line, timestamp,
//   device{name, compute_capability "9.0", sms, l2_bytes, memory_bytes, sm_clock_mhz,
//          mem_clock_mhz, driver_version "13.0", cuda_runtime_version "13.0", cublaslt_version "13.0.0"} | null,
//   sol{gpu, hbm_gbps, tensor_tflops, kind} | null, sol_note,
//   settings{config, seed (when all cases share it), dist (likewise), tolerance{rtol, atol},
//            timing{enabled, l2, warmup, min_samples, max_samples, min_time_s, max_time_s, target_rse},
//            variants (empty: every variant), device_index},
//   results[{problem, shape, variant, role, seed, dist, status, reason, reference, timing_note,
//            check{rule, checked, mismatches, max_abs, max_rel, first[{group, l, m, n, got, want}]} | null,
//            timing{timer, l2, batch, samples, median_us, mean_us, min_us, max_us, stddev_us,
//                   p10_us, p90_us, rse, noise, stop_reason, samples_us[]} | null,
//            metrics{flops, bytes, tflops, gbps, sol_us, pct_sol, b200_target_us, speedup_vs_cublaslt},
//            repro}],
//   summary{pass, fail, skip, error}
// NOTE: check.first[].got/want may be NaN or infinite (unwritten outputs); JSON has no such
// numbers, so they are written as the strings "NaN", "Infinity", "-Infinity".
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "npy.hpp"
#include "report_read.hpp"
#include "results.hpp"

namespace nvfp4 {

std::string_view to_string(Status s) {
  switch (s) {
    case Status::pass: return "PASS";
    case Status::fail: return "FAIL";
    case Status::skip: return "SKIP";
    case Status::error: return "ERROR";
  }
  return "?";
}

namespace {

using Json = nlohmann::ordered_json;


std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return s;
}

std::string status_word(Status s) { return std::string(to_string(s)); }

Json num(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }
Json num(const std::optional<double>& v) { return v ? num(*v) : Json(nullptr); }

Json float_value(float v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  return Json(v);
}

// "13.0" from CUDA's 1000*major + 10*minor; null when unknown.
Json cuda_version_text(int v) { return v > 0 ? Json(fmt::format("{}.{}", v / 1000, (v % 1000) / 10)) : Json(nullptr); }

std::string mismatch_summary(const CheckResult& c) {
  std::string s = fmt::format("{} of {} mismatched", c.mismatches, c.checked);
  if (!c.first.empty()) {
    const Mismatch& m = c.first.front();
    s += fmt::format("; first at group {} l {} m {} n {}: got {:g} want {:g}", m.group, m.l, m.m, m.n, m.got, m.want);
  }
  return s;
}

// What the reason column shows: the recorded reason, plus the mismatch summary for FAIL.
std::string reason_text(const CaseResult& r) {
  std::string s = r.reason;
  if (r.status == Status::fail && r.check && r.check->mismatches > 0) {
    const std::string m = mismatch_summary(*r.check);
    if (s.find(m) == std::string::npos) s += (s.empty() ? "" : "; ") + m;
  }
  return one_line(s);
}

std::string fixed(const std::optional<double>& v, int digits, std::string_view suffix = "") {
  if (!v || !std::isfinite(*v)) return "-";
  return fmt::format("{:.{}f}{}", *v, digits, suffix);
}

std::optional<double> median_us(const CaseResult& r) {
  if (r.timing && r.timing->stats.n > 0) return r.timing->stats.median;
  return std::nullopt;
}
std::optional<double> noise_pct(const CaseResult& r) {
  if (r.timing && r.timing->stats.n > 1) return 100.0 * r.timing->stats.noise;
  return std::nullopt;
}

// Terminal: long group shapes are shortened to the first group and a count.
std::string short_shape(const CaseResult& r) {
  constexpr size_t kMax = 40;
  if (r.shape.size() <= kMax) return r.shape;
  const size_t groups = size_t(std::count(r.shape.begin(), r.shape.end(), ',')) + 1;
  const size_t comma = r.shape.find(',');
  return fmt::format("{},...({} groups)", r.shape.substr(0, comma), groups);
}

struct Column {
  std::string title;
  bool right;  // numbers are right-aligned
};

const std::vector<Column>& table_columns() {
  static const std::vector<Column> cols = {
      {"problem", false}, {"shape", false},   {"variant", false},   {"status", false},
      {"median us", true}, {"noise %", true}, {"TFLOP/s", true},    {"GB/s", true},
      {"%SOL", true},      {"x cublaslt", true}, {"floor us", true}, {"x floor", true}, {"reason", false}};
  return cols;
}

std::vector<std::string> table_row(const CaseResult& r, bool full_shape) {
  const Metrics& m = r.metrics;
  return {std::string(to_string(r.problem)),
          full_shape ? r.shape : short_shape(r),
          r.variant,
          status_word(r.status),
          fixed(median_us(r), 3),
          fixed(noise_pct(r), 2),
          fixed(m.tflops, 2),
          fixed(m.gbps, 0),
          fixed(m.pct_sol, 1),
          fixed(m.speedup_vs_cublaslt, 2, "x"),
          fixed(m.floor_us, 2),
          fixed(m.vs_floor, 2, "x"),
          reason_text(r)};
}

std::string join_csv_field(const std::string& raw) {
  const std::string v = one_line(raw);
  if (v.find_first_of(",\"") == std::string::npos) return v;
  std::string out = "\"";
  for (char c : v) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_num(double v) { return std::isfinite(v) ? fmt::format("{}", v) : ""; }
std::string csv_num(const std::optional<double>& v) { return v ? csv_num(*v) : ""; }

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : one_line(s)) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

struct Counts {
  int pass = 0, fail = 0, skip = 0, error = 0;
};
Counts count(const std::vector<CaseResult>& results) {
  Counts c;
  for (const CaseResult& r : results) {
    switch (r.status) {
      case Status::pass: ++c.pass; break;
      case Status::fail: ++c.fail; break;
      case Status::skip: ++c.skip; break;
      case Status::error: ++c.error; break;
    }
  }
  return c;
}

// Seed / dist shared by every case, for the settings block.
std::optional<uint64_t> common_seed(const RunPlan& p) {
  if (p.cases.empty()) return std::nullopt;
  for (const CaseSpec& c : p.cases)
    if (c.seed != p.cases.front().seed) return std::nullopt;
  return p.cases.front().seed;
}
std::optional<Dist> common_dist(const RunPlan& p) {
  if (p.cases.empty()) return std::nullopt;
  for (const CaseSpec& c : p.cases)
    if (c.dist != p.cases.front().dist) return std::nullopt;
  return p.cases.front().dist;
}

std::string settings_line(const RunInfo& info) {
  const RunPlan& p = info.plan;
  const TimingOptions& t = p.timing;
  std::string s;
  if (auto seed = common_seed(p)) s += fmt::format("seed {}, ", *seed);
  if (auto dist = common_dist(p)) s += fmt::format("dist {}, ", to_string(*dist));
  s += fmt::format("rtol {:g}, atol {:g}, ", p.tolerance.rtol, p.tolerance.atol);
  if (p.timing_enabled)
    s += fmt::format("timer {}, batch {}, L2 {}, warmup {}, samples {}-{}, time {:g}-{:g} s, target RSE {:g}",
                     to_string(t.timer), t.batch, to_string(t.l2), t.warmup,
                     t.min_samples, t.max_samples, t.min_time_s, t.max_time_s, t.target_rse);
  else
    s += "verify only (no timing)";
  if (!p.config_path.empty()) s += fmt::format(", config `{}`", p.config_path);
  return s;
}

Json json_check(const CheckResult& c) {
  Json first = Json::array();
  for (const Mismatch& m : c.first)
    first.push_back(Json{{"group", m.group}, {"l", m.l}, {"m", m.m}, {"n", m.n},
                         {"got", float_value(m.got)}, {"want", float_value(m.want)}});
  return Json{{"rule", c.with_bound ? "atol+rtol*|ref|+fp32-accumulation-bound" : "atol+rtol*|ref|"},
              {"checked", c.checked}, {"mismatches", c.mismatches}, {"max_abs", num(c.max_abs)},
              {"max_rel", num(c.max_rel)}, {"first", first}};
}

Json json_clock_sample(const std::optional<ClockSample>& c) {
  if (!c) return nullptr;
  return Json{{"sm_mhz", c->sm_mhz},
              {"mem_mhz", c->mem_mhz},
              {"temp_c", c->temp_c},
              {"power_w", num(c->power_w)},
              {"throttle_reasons", describe_throttle_reasons(c->throttle_reasons)}};
}

Json json_clocks(const ClockRecord& c) {
  if (!c.before) return Json{{"note", c.note.empty() ? "clocks: unknown" : c.note}};
  return Json{{"before", json_clock_sample(c.before)},
              {"after", json_clock_sample(c.after)},
              {"reference_sm_mhz", c.reference_sm_mhz},
              {"min_sm_mhz", c.min_sm_mhz},
              {"throttled_samples", c.throttled_samples},
              {"rule", "a sample is throttled when the SM clock read after it is below 90% of reference_sm_mhz"}};
}

Json json_timing(const TimingResult& t, bool keep_samples) {
  const SampleStats& s = t.stats;
  Json samples = Json::array();
  for (double v : t.samples_us) samples.push_back(num(v));
  Json j{{"timer", to_string(t.timer)}, {"l2", to_string(t.l2)},     {"batch", t.batch},
              {"samples", s.n},           {"median_us", num(s.median)}, {"mean_us", num(s.mean)},
              {"min_us", num(s.min)},     {"max_us", num(s.max)},    {"stddev_us", num(s.stddev)},
              {"p10_us", num(s.p10)},     {"p90_us", num(s.p90)},    {"rse", num(s.rse)},
              {"noise", num(s.noise)},    {"stop_reason", t.stop_reason}, {"clocks", json_clocks(t.clocks)}};
  if (keep_samples) j["samples_us"] = samples;
  return j;
}

Json json_metrics(const Metrics& m) {
  return Json{{"flops", num(m.flops)},       {"bytes", num(m.bytes)},
              {"tflops", num(m.tflops)},     {"gbps", num(m.gbps)},
              {"sol_us", num(m.sol_us)},     {"pct_sol", num(m.pct_sol)},
              {"b200_target_us", num(m.b200_target_us)},
              {"speedup_vs_cublaslt", num(m.speedup_vs_cublaslt)},
              {"floor_us", num(m.floor_us)},  {"vs_floor", num(m.vs_floor)}};
}

Json json_result(const CaseResult& r, bool keep_samples) {
  return Json{{"problem", to_string(r.problem)},
              {"shape", r.shape},
              {"variant", r.variant},
              {"role", r.role},
              {"seed", r.seed},
              {"dist", to_string(r.dist)},
              {"status", status_word(r.status)},
              {"reason", r.reason},
              {"reference", r.reference},
              {"timing_note", r.timing_note},
              {"check", r.check ? json_check(*r.check) : Json(nullptr)},
              {"timing", r.timing ? json_timing(*r.timing, keep_samples) : Json(nullptr)},
              {"metrics", json_metrics(r.metrics)},
              {"repro", r.repro}};
}

Json json_device(const DeviceInfo& d) {
  return Json{{"name", d.name},
              {"compute_capability", fmt::format("{}.{}", d.cc_major, d.cc_minor)},
              {"sms", d.sms},
              {"l2_bytes", d.l2_bytes},
              {"memory_bytes", d.mem_bytes},
              {"sm_clock_mhz", d.sm_clock_khz / 1000.0},
              {"mem_clock_mhz", d.mem_clock_khz / 1000.0},
              {"driver_version", cuda_version_text(d.driver_version)},
              {"cuda_runtime_version", cuda_version_text(d.runtime_version)},
              {"cublaslt_version", d.cublaslt_version > 0
                                       ? Json(fmt::format("{}.{}.{}", d.cublaslt_version / 10000,
                                                          (d.cublaslt_version % 10000) / 100, d.cublaslt_version % 100))
                                       : Json(nullptr)}};
}

Json json_settings(const RunInfo& info) {
  const RunPlan& p = info.plan;
  const TimingOptions& t = p.timing;
  Json s;
  s["config"] = p.config_path.empty() ? Json(nullptr) : Json(p.config_path);
  if (auto seed = common_seed(p)) s["seed"] = *seed;
  if (auto dist = common_dist(p)) s["dist"] = to_string(*dist);
  s["tolerance"] = Json{{"rtol", p.tolerance.rtol}, {"atol", p.tolerance.atol}};
  s["timing"] = Json{{"enabled", p.timing_enabled},  {"timer", to_string(t.timer)}, {"batch", t.batch},
                     {"l2", to_string(t.l2)}, {"keep_samples", p.keep_samples}, {"floor", p.floor_enabled},
                     {"warmup", t.warmup},           {"min_samples", t.min_samples},
                     {"max_samples", t.max_samples}, {"min_time_s", t.min_time_s},
                     {"max_time_s", t.max_time_s},   {"target_rse", t.target_rse}};
  s["variants"] = p.variants;
  s["device_index"] = p.device;
  return s;
}

// Indented JSON, except that each "samples_us" array (numbers only) stays on one line.
std::string dump_json(const Json& j) {
  const std::string text = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  constexpr std::string_view kKey = "\"samples_us\": [";
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (true) {
    const size_t at = text.find(kKey, pos);
    if (at == std::string::npos) break;
    const size_t open = at + kKey.size();
    const size_t close = text.find(']', open);
    out.append(text, pos, open - pos);
    bool space = false;
    for (size_t i = open; i < close; ++i) {
      const char c = text[i];
      if (c == '\n' || c == ' ') {
        space = space || c == ' ';
        continue;
      }
      if (c != ',' && space && out.back() == ',') out += ' ';
      space = false;
      out += c;
    }
    pos = close;
  }
  out.append(text, pos, std::string::npos);
  return out + "\n";
}

// ---- reading back ----

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

// ---- terminal ----

void print_table(std::ostream& os, const std::vector<CaseResult>& results) {
  const auto& cols = table_columns();
  std::vector<std::vector<std::string>> rows;
  rows.reserve(results.size());
  for (const CaseResult& r : results) rows.push_back(table_row(r, false));
  std::vector<size_t> width(cols.size());
  for (size_t c = 0; c < cols.size(); ++c) {
    width[c] = cols[c].title.size();
    for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
  }
  auto emit = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t c = 0; c < cols.size(); ++c) {
      if (c) line += "  ";
      if (c + 1 == cols.size()) line += cells[c];  // last column: no padding
      else if (cols[c].right) line += fmt::format("{:>{}}", cells[c], width[c]);
      else line += fmt::format("{:<{}}", cells[c], width[c]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    os << line << '\n';
  };
  std::vector<std::string> titles;
  for (const Column& c : cols) titles.push_back(c.title);
  emit(titles);
  for (const auto& row : rows) emit(row);
  const Counts n = count(results);
  os << fmt::format("{} PASS, {} FAIL, {} SKIP, {} ERROR\n", n.pass, n.fail, n.skip, n.error);
}

// ---- files ----

void write_json(const std::string& path, const RunInfo& info, const std::vector<CaseResult>& results) {
  Json j;
  j["schema"] = kReportSchema;
  j["tool"] = Json{{"name", "nvfp4bench"}, {"version", info.tool_version}, {"git_sha", info.git_sha}};
  j["command_line"] = info.command_line;
  j["timestamp"] = info.timestamp;
  j["device"] = info.device ? json_device(*info.device) : Json(nullptr);
  auto rates = [](const SolRates& r) {
    return Json{{"gpu", r.gpu}, {"hbm_gbps", r.hbm_bytes_per_s / 1e9}, {"tensor_tflops", r.flops_per_s / 1e12},
                {"kind", r.flops_kind}};
  };
  j["sol"] = info.sol ? rates(*info.sol) : Json(nullptr);
  j["sol_source"] = info.sol_source;
  j["sol_spec"] = info.sol_spec ? rates(*info.sol_spec) : Json(nullptr);
  j["sol_measured"] = info.calibration ? Json{{"hbm_gbps", info.calibration->hbm_read_gbps},
                                              {"fp16_tensor_tflops", info.calibration->fp16_tensor_tflops},
                                              {"fp4_tensor_tflops", num(info.calibration->fp4_tensor_tflops)},
                                              {"notes", info.calibration->notes}}
                                       : Json(nullptr);
  if (info.sol)
    j["sol_note"] = fmt::format("sol_us = max(bytes / hbm_gbps, flops / tensor_tflops) from the {} rates of this GPU; "
                                "pct_sol = 100 * sol_us / median_us",
                                info.sol_source);
  else
    j["sol_note"] = info.device ? "no spec rates for this GPU: sol_us and pct_sol are null"
                                : "no GPU: sol_us and pct_sol are null";
  j["settings"] = json_settings(info);
  Json arr = Json::array();
  for (const CaseResult& r : results) arr.push_back(json_result(r, info.plan.keep_samples));
  j["results"] = std::move(arr);
  const Counts n = count(results);
  j["summary"] = Json{{"pass", n.pass}, {"fail", n.fail}, {"skip", n.skip}, {"error", n.error}};
  const std::string text = dump_json(j);
  write_file_atomic(path, [&](std::ostream& out) { out << text; });
}

void write_csv(const std::string& path, const RunInfo& /*info*/, const std::vector<CaseResult>& results) {
  static constexpr const char* kHeader[] = {
      "problem", "shape", "variant", "role", "seed", "dist", "status", "reason", "reference",
      "checked", "mismatches", "max_abs", "max_rel", "timer", "l2", "batch", "samples", "median_us",
      "mean_us", "min_us", "max_us", "stddev_us", "p10_us", "p90_us", "rse", "noise", "stop_reason",
      "flops", "bytes", "tflops", "gbps", "sol_us", "pct_sol", "b200_target_us", "speedup_vs_cublaslt",
      "floor_us", "vs_floor", "throttled_samples", "timing_note", "repro"};
  std::string text;
  for (size_t i = 0; i < std::size(kHeader); ++i) text += (i ? "," : "") + std::string(kHeader[i]);
  text += '\n';
  for (const CaseResult& r : results) {
    std::vector<std::string> f = {std::string(to_string(r.problem)), r.shape, r.variant, r.role,
                                  std::to_string(r.seed), std::string(to_string(r.dist)),
                                  status_word(r.status), reason_text(r), r.reference};
    if (r.check) {
      f.insert(f.end(), {std::to_string(r.check->checked), std::to_string(r.check->mismatches),
                         csv_num(r.check->max_abs), csv_num(r.check->max_rel)});
    } else {
      f.insert(f.end(), 4, "");
    }
    if (r.timing) {
      const SampleStats& s = r.timing->stats;
      f.insert(f.end(), {std::string(to_string(r.timing->timer)), std::string(to_string(r.timing->l2)), std::to_string(r.timing->batch),
                         std::to_string(s.n), csv_num(s.median), csv_num(s.mean), csv_num(s.min), csv_num(s.max),
                         csv_num(s.stddev), csv_num(s.p10), csv_num(s.p90), csv_num(s.rse), csv_num(s.noise),
                         r.timing->stop_reason});
    } else {
      f.insert(f.end(), 14, "");
    }
    const Metrics& m = r.metrics;
    f.insert(f.end(), {csv_num(m.flops), csv_num(m.bytes), csv_num(m.tflops), csv_num(m.gbps), csv_num(m.sol_us),
                       csv_num(m.pct_sol), csv_num(m.b200_target_us), csv_num(m.speedup_vs_cublaslt),
                       csv_num(m.floor_us), csv_num(m.vs_floor),
                       r.timing && r.timing->clocks.throttled_samples >= 0
                           ? std::to_string(r.timing->clocks.throttled_samples) : std::string(),
                       r.timing_note, r.repro});
    for (size_t i = 0; i < f.size(); ++i) text += (i ? "," : "") + join_csv_field(f[i]);
    text += '\n';
  }
  write_file_atomic(path, [&](std::ostream& out) { out << text; });
}

void write_markdown(const std::string& path, const RunInfo& info, const std::vector<CaseResult>& results) {
  std::string text;
  const std::string gpu = info.device ? info.device->name : std::string("no GPU");
  text += fmt::format("# nvfp4bench results: {}\n\n", md_cell(gpu));
  std::string meta = fmt::format("nvfp4bench {}", info.tool_version.empty() ? "?" : info.tool_version);
  if (!info.git_sha.empty()) meta += fmt::format(" ({})", info.git_sha);
  if (info.device)
    meta += fmt::format(", sm_{}{}, {} SMs", info.device->cc_major, info.device->cc_minor, info.device->sms);
  if (!info.timestamp.empty()) meta += fmt::format(", {}", info.timestamp);
  text += meta + "\n\n";
  text += fmt::format("Settings: {}\n\n", settings_line(info));
  if (!info.command_line.empty()) text += fmt::format("Command: `{}`\n\n", info.command_line);

  const auto& cols = table_columns();
  std::string header = "|", rule = "|";
  for (const Column& c : cols) {
    header += " " + c.title + " |";
    rule += c.right ? " ---: |" : " --- |";
  }
  text += header + "\n" + rule + "\n";
  for (const CaseResult& r : results) {
    std::string line = "|";
    for (const std::string& cell : table_row(r, true)) line += " " + md_cell(cell) + " |";
    text += line + "\n";
  }
  const Counts n = count(results);
  text += fmt::format("\n{} PASS, {} FAIL, {} SKIP, {} ERROR\n", n.pass, n.fail, n.skip, n.error);
  write_file_atomic(path, [&](std::ostream& out) { out << text; });
}

void check_writable(const std::string& path, const std::string& flag) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path.empty()) throw UsageError(fmt::format("{} '': the path is empty", flag));
  if (fs::is_directory(path, ec)) throw UsageError(fmt::format("{} {}: '{}' is a directory", flag, path, path));
  std::string dir = fs::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  if (!fs::exists(dir, ec)) throw UsageError(fmt::format("{} {}: directory '{}' does not exist", flag, path, dir));
  if (!fs::is_directory(dir, ec)) throw UsageError(fmt::format("{} {}: '{}' is not a directory", flag, path, dir));
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw UsageError(fmt::format("{} {}: directory '{}' is not writable", flag, path, dir));
  if (fs::exists(path, ec) && ::access(path.c_str(), W_OK) != 0)
    throw UsageError(fmt::format("{} {}: '{}' exists and is not writable", flag, path, path));
}

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
