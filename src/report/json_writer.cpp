// SPDX-License-Identifier: Apache-2.0
// json_writer.cpp: the JSON report (schema "nvfp4bench.report/1"; layout in report/report.hpp).
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "data/npy.hpp"
#include "report/cells.hpp"
#include "report/report.hpp"

namespace nvfp4 {
namespace {

using Json = nlohmann::ordered_json;
using namespace report;

Json num(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }
Json num(const std::optional<double>& v) { return v ? num(*v) : Json(nullptr); }

Json float_value(float v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  return Json(v);
}

// "13.0" from CUDA's 1000*major + 10*minor; null when unknown.
Json cuda_version_text(int v) { return v > 0 ? Json(fmt::format("{}.{}", v / 1000, (v % 1000) / 10)) : Json(nullptr); }

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
              {"rule", "a sample is throttled when the SM clock read after it is below 90% of reference_sm_mhz "
                       "or NVML reports a clock-lowering reason (power cap, thermal or hardware slowdown, "
                       "sync boost, power brake) after it"}};
}

Json json_timing(const TimingResult& t, bool keep_samples) {
  const SampleStats& s = t.stats;
  Json samples = Json::array();
  for (double v : t.samples_us) samples.push_back(num(v));
  Json j{{"timer", to_string(t.timer)}, {"l2", to_string(t.l2)},     {"batch", t.batch},
              {"samples", s.n},           {"median_us", num(s.median)}, {"mean_us", num(s.mean)},
              {"min_us", num(s.min)},     {"max_us", num(s.max)},    {"stddev_us", num(s.stddev)},
              {"p10_us", num(s.p10)},     {"p90_us", num(s.p90)},    {"rse", num(s.rse)},
              {"noise", num(s.noise)},    {"robust_noise", num(s.robust_noise)}, {"outliers", s.outliers},
              {"outlier_rule", kOutlierRule}, {"extra_samples", t.extra_samples},
              {"stop_reason", t.stop_reason}, {"clocks", json_clocks(t.clocks)}};
  if (keep_samples) j["samples_us"] = samples;
  return j;
}

Json json_metrics(const Metrics& m) {
  return Json{{"flops", num(m.flops)},       {"bytes", num(m.bytes)},
              {"tflops", num(m.tflops)},     {"gbps", num(m.gbps)},
              {"sol_us", num(m.sol_us)},     {"pct_sol", num(m.pct_sol)},
              {"pct_ceiling", num(m.pct_ceiling)},
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
              {"plan", r.plan},
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
  if (auto seed = common_seed(info)) s["seed"] = *seed;
  if (auto dist = common_dist(info)) s["dist"] = to_string(*dist);
  s["tolerance"] = Json{{"rtol", p.tolerance.rtol}, {"atol", p.tolerance.atol}};
  s["timing"] = Json{{"enabled", p.timing_enabled},  {"timer", to_string(t.timer)},
                     {"timer_reason", p.timer_reason.empty() ? "built-in default" : p.timer_reason},
                     {"module_loading", p.module_loading.empty() ? Json(nullptr) : Json(p.module_loading)}, {"batch", t.batch},
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

}  // namespace

std::string json_report_text(const RunInfo& info, const std::vector<CaseResult>& results) {
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
                                              {"decode_wgmma_tflops", num(info.calibration->decode_wgmma_tflops)},
                                              {"wgmma_rs_tflops", num(info.calibration->wgmma_rs_tflops)},
                                              {"decode_mma_tflops", num(info.calibration->decode_mma_tflops)},
                                              {"mma_sync_tflops", num(info.calibration->mma_sync_tflops)},
                                              {"notes", info.calibration->notes}}
                                       : Json(nullptr);
  std::string sol_note;
  if (info.sol)
    sol_note = fmt::format("sol_us = max(bytes / hbm_gbps, flops / tensor_tflops) from the {} rates of this GPU; "
                           "pct_sol = 100 * sol_us / median_us",
                           info.sol_source);
  else
    sol_note = info.device ? "no spec rates for this GPU: sol_us and pct_sol are null"
                           : "no GPU: sol_us and pct_sol are null";
  if (info.calibration && info.calibration->decode_wgmma_tflops)
    sol_note += "; pct_ceiling = 100 * tflops / sol_measured.decode_wgmma_tflops (GEMM family; null for gemv)";
  j["sol_note"] = sol_note;
  j["settings"] = json_settings(info);
  if (!info.plugins.empty()) {  // --plugin libraries (absent when none was loaded)
    Json plugins = Json::array();
    for (const PluginRecord& p : info.plugins)
      plugins.push_back(Json{{"name", p.name}, {"path", p.path}, {"abi_version", p.abi_version}, {"variants", p.variants}});
    j["plugins"] = std::move(plugins);
  }
  if (!info.submissions.empty()) {  // --submission files (absent when none was given)
    Json subs = Json::array();
    for (const SubmissionRecord& s : info.submissions)
      subs.push_back(Json{{"name", s.name}, {"path", s.path}, {"python", s.python}, {"torch", s.torch},
                          {"skip", s.skip}, {"problems", s.problems}});
    j["submissions"] = std::move(subs);
  }
  Json arr = Json::array();
  for (const CaseResult& r : results) arr.push_back(json_result(r, info.plan.keep_samples));
  j["results"] = std::move(arr);
  const Counts n = count(results);
  j["summary"] = Json{{"pass", n.pass}, {"fail", n.fail}, {"skip", n.skip}, {"error", n.error}};
  return dump_json(j);
}

void write_json(const std::string& path, const RunInfo& info, const std::vector<CaseResult>& results) {
  const std::string text = json_report_text(info, results);
  write_file_atomic(path, [&](std::ostream& out) { out << text; });
}

}  // namespace nvfp4
