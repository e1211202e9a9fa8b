// SPDX-License-Identifier: Apache-2.0
// report.hpp: the printers. Each reads the same in-memory report (RunInfo + the CaseResults, see
// run/results.hpp) and only formats it; none of them measures. One file per format:
//   table.cpp            terminal table (print_table)
//   json_writer.cpp      JSON, schema "nvfp4bench.report/1" (read back by json_reader.cpp)
//   csv_writer.cpp       CSV, the JSON records as flat columns
//   markdown_writer.cpp  Markdown table headed by the GPU
//   html_writer.cpp      self-contained HTML page (charts; write_html in report_read.hpp)
// A new format is one new file with a write_<format>(path, info, results) declared here, plus its
// line in write_reports (report/writers.cpp) and its flag (cli/flags.cpp).
//
// JSON layout (keys in this order; absent values are null):
//   schema, tool{name, version, git_sha}, command_line, timestamp,
//   device{name, compute_capability "9.0", sms, l2_bytes, memory_bytes, sm_clock_mhz,
//          mem_clock_mhz, driver_version "13.0", cuda_runtime_version "13.0", cublaslt_version "13.0.0"} | null,
//   sol{gpu, hbm_gbps, tensor_tflops, kind} | null, sol_source, sol_spec,
//   sol_measured{hbm_gbps, fp16_tensor_tflops, fp4_tensor_tflops, decode_wgmma_tflops, wgmma_rs_tflops,
//                decode_mma_tflops, mma_sync_tflops, notes} | null (decode_wgmma_tflops and
//                wgmma_rs_tflops since the wgmma ceiling, the mma pair since the mma.sync one: older
//                reports lack them), sol_note,
//   settings{config, seed (when all cases share it), dist (likewise), tolerance{rtol, atol},
//            timing{enabled, timer, timer_reason, module_loading, batch, l2, keep_samples, floor, warmup, min_samples,
//                   max_samples, min_time_s, max_time_s, target_rse},
//            variants (empty: every variant), device_index},
//   plugins[{name, path, abi_version, variants[]}] (only when --plugin loaded some),
//   submissions[{name, path, python, torch, skip, problems[]}] (only when --submission gave some),
//   results[{problem, shape, variant, role, seed, dist, status, reason, reference, timing_note,
//            check{rule, checked, mismatches, max_abs, max_rel, first[{group, l, m, n, got, want}]} | null,
//            timing{timer, l2, batch, samples, median_us, mean_us, min_us, max_us, stddev_us,
//                   p10_us, p90_us, rse, noise, robust_noise, outliers, outlier_rule, stop_reason,
//                   clocks, samples_us[]} | null,
//            metrics{flops, bytes, tflops, gbps, sol_us, pct_sol, pct_ceiling, b200_target_us,
//                    speedup_vs_cublaslt, floor_us, vs_floor},
//            repro}],
//   summary{pass, fail, skip, error}
// NOTE: check.first[].got/want may be NaN or infinite (unwritten outputs); JSON has no such
// numbers, so they are written as the strings "NaN", "Infinity", "-Infinity".
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "run/results.hpp"

namespace nvfp4 {

inline constexpr const char* kReportSchema = "nvfp4bench.report/1";

// Terminal table: one aligned row per (problem, shape, variant), in run order.
void print_table(std::ostream& os, const std::vector<CaseResult>& results);

// Report files. Each is written to a temporary file beside the target and renamed, so a target
// is either complete or untouched. Throw std::runtime_error on I/O failure.
void write_json(const std::string& path, const RunInfo& info, const std::vector<CaseResult>& results);
void write_csv(const std::string& path, const RunInfo& info, const std::vector<CaseResult>& results);
void write_markdown(const std::string& path, const RunInfo& info, const std::vector<CaseResult>& results);

// The JSON report's text (what write_json writes).
std::string json_report_text(const RunInfo& info, const std::vector<CaseResult>& results);

// Every file the plan's outputs name (--json, --csv, --markdown, --html). The JSON text is made
// first, and the other formats are made from it alone (write_formats, report_read.hpp).
void write_reports(const RunInfo& info, const std::vector<CaseResult>& results);

}  // namespace nvfp4
