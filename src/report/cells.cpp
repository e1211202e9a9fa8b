// SPDX-License-Identifier: Apache-2.0
// cells.cpp: the text of a result as every printer shows it (reason column, table cells,
// settings line, counts). Printers share these so that the table, Markdown and CSV agree.
#include "report/cells.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace nvfp4::report {

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return s;
}

std::string status_word(Status s) { return std::string(to_string(s)); }

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

std::string fixed(const std::optional<double>& v, int digits, std::string_view suffix) {
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

std::vector<Column> table_columns(bool with_ceiling) {
  std::vector<Column> cols = {
      {"problem", false}, {"shape", false},   {"variant", false},   {"status", false},
      {"median us", true}, {"noise %", true}, {"TFLOP/s", true},    {"GB/s", true},
      {"%SOL", true},      {"x cublaslt", true}, {"floor us", true}, {"x floor", true}, {"reason", false}};
  if (with_ceiling) cols.insert(cols.begin() + 9, Column{"%ceiling", true});
  return cols;
}

std::vector<std::string> table_row(const CaseResult& r, bool full_shape, bool with_ceiling) {
  const Metrics& m = r.metrics;
  std::vector<std::string> row = {std::string(to_string(r.problem)),
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
  if (with_ceiling) row.insert(row.begin() + 9, fixed(m.pct_ceiling, 1));
  return row;
}

bool has_ceiling(const std::vector<CaseResult>& results) {
  for (const CaseResult& r : results)
    if (r.metrics.pct_ceiling) return true;
  return false;
}

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
std::optional<uint64_t> common_seed(const RunInfo& info) {
  const RunPlan& p = info.plan;
  if (p.cases.empty()) return info.seed;
  for (const CaseSpec& c : p.cases)
    if (c.seed != p.cases.front().seed) return std::nullopt;
  return p.cases.front().seed;
}
std::optional<Dist> common_dist(const RunInfo& info) {
  const RunPlan& p = info.plan;
  if (p.cases.empty()) return info.dist;
  for (const CaseSpec& c : p.cases)
    if (c.dist != p.cases.front().dist) return std::nullopt;
  return p.cases.front().dist;
}

std::string settings_line(const RunInfo& info) {
  const RunPlan& p = info.plan;
  const TimingOptions& t = p.timing;
  std::string s;
  if (auto seed = common_seed(info)) s += fmt::format("seed {}, ", *seed);
  if (auto dist = common_dist(info)) s += fmt::format("dist {}, ", to_string(*dist));
  s += fmt::format("rtol {:g}, atol {:g}, ", p.tolerance.rtol, p.tolerance.atol);
  if (p.timing_enabled)
    s += fmt::format("timer {}{}, batch {}, L2 {}, warmup {}, samples {}-{}, time {:g}-{:g} s, target RSE {:g}",
                     to_string(t.timer), p.timer_reason.empty() ? "" : " (" + p.timer_reason + ")", t.batch, to_string(t.l2), t.warmup,
                     t.min_samples, t.max_samples, t.min_time_s, t.max_time_s, t.target_rse);
  else
    s += "verify only (no timing)";
  if (!p.module_loading.empty()) s += fmt::format(", modules {}", p.module_loading);
  if (!p.config_path.empty()) s += fmt::format(", config `{}`", p.config_path);
  return s;
}

}  // namespace nvfp4::report
