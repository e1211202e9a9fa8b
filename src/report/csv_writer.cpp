// SPDX-License-Identifier: Apache-2.0
// csv_writer.cpp: the CSV report: the JSON records as flat columns, one row per result.
#include <fmt/format.h>

#include <cmath>
#include <iterator>

#include "data/npy.hpp"
#include "report/cells.hpp"
#include "report/report.hpp"

namespace nvfp4 {
namespace {

using namespace report;

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

}  // namespace

void write_csv(const std::string& path, const RunInfo& /*info*/, const std::vector<CaseResult>& results) {
  static constexpr const char* kHeader[] = {
      "problem", "shape", "variant", "role", "seed", "dist", "status", "reason", "reference",
      "checked", "mismatches", "max_abs", "max_rel", "timer", "l2", "batch", "samples", "median_us",
      "mean_us", "min_us", "max_us", "stddev_us", "p10_us", "p90_us", "rse", "noise", "robust_noise", "outliers", "stop_reason",
      "flops", "bytes", "tflops", "gbps", "sol_us", "pct_sol", "pct_ceiling", "b200_target_us", "speedup_vs_cublaslt",
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
                         csv_num(s.robust_noise), std::to_string(s.outliers), r.timing->stop_reason});
    } else {
      f.insert(f.end(), 16, "");
    }
    const Metrics& m = r.metrics;
    f.insert(f.end(), {csv_num(m.flops), csv_num(m.bytes), csv_num(m.tflops), csv_num(m.gbps), csv_num(m.sol_us),
                       csv_num(m.pct_sol), csv_num(m.pct_ceiling), csv_num(m.b200_target_us), csv_num(m.speedup_vs_cublaslt),
                       csv_num(m.floor_us), csv_num(m.vs_floor),
                       r.timing && r.timing->clocks.throttled_samples >= 0
                           ? std::to_string(r.timing->clocks.throttled_samples) : std::string(),
                       r.timing_note, r.repro});
    for (size_t i = 0; i < f.size(); ++i) text += (i ? "," : "") + join_csv_field(f[i]);
    text += '\n';
  }
  write_file_atomic(path, [&](std::ostream& out) { out << text; });
}

}  // namespace nvfp4
