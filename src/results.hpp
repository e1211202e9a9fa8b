// SPDX-License-Identifier: Apache-2.0
// results.hpp: finished results and the run's metadata, handed to the printers in report.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "calibrate.hpp"
#include "case_data.hpp"
#include "device_info.hpp"
#include "plan.hpp"
#include "timing.hpp"
#include "verify.hpp"

namespace nvfp4 {

enum class Status { pass, fail, skip, error };
std::string_view to_string(Status s);  // "PASS", "FAIL", "SKIP", "ERROR"

struct Metrics {
  double flops = 0;                     // per call
  double bytes = 0;                     // FP4 bytes per call (A, B, both scale tensors, C)
  std::optional<double> tflops;         // flops / median
  std::optional<double> gbps;           // bytes / median
  std::optional<double> sol_us;         // max(bytes / HBM bw, flops / tensor rate) on this GPU
  std::optional<double> pct_sol;        // 100 * sol / median
  std::optional<double> b200_target_us; // from the config
  std::optional<double> speedup_vs_cublaslt;  // cublaslt median / this median, same case
  std::optional<double> floor_us;       // streaming floor of the same case, same timing method
  std::optional<double> vs_floor;       // this median / floor_us
};

struct CaseResult {
  Problem problem = Problem::gemm;
  std::string shape;    // format_shape()
  std::string variant;
  std::string role;
  uint64_t seed = 0;
  Dist dist = Dist::gpumode;
  Status status = Status::skip;
  std::string reason;        // why FAIL / SKIP / ERROR; for PASS a note (throttled samples) or ""
  std::string reference;     // which reference ran
  std::string timing_note;   // the variant's note on what is untimed
  std::optional<CheckResult> check;
  std::optional<TimingResult> timing;
  Metrics metrics;
  std::string repro;         // command line that repeats just this case
};

struct RunInfo {
  std::string tool_version;
  std::string git_sha;
  std::string command_line;
  std::string timestamp;     // ISO 8601 UTC
  std::optional<DeviceInfo> device;
  std::optional<SolRates> sol;        // the rates the SOL columns use
  std::optional<SolRates> sol_spec;   // the spec table's entry for this GPU
  std::optional<Calibration> calibration;  // measured rates (--sol measured)
  std::string sol_source = "spec";    // "spec" or "measured"
  RunPlan plan;              // settings: tolerance, timing, outputs, config
};

// Terminal table: one aligned row per (problem, shape, variant), in run order.
void print_table(std::ostream& os, const std::vector<CaseResult>& results);

// Report writers. Each writes to a temporary file beside the target and renames it, so a target
// is either complete or untouched. Throw std::runtime_error on I/O failure.
void write_json(const std::string& path, const RunInfo& info, const std::vector<CaseResult>& results);
void write_csv(const std::string& path, const RunInfo& info, const std::vector<CaseResult>& results);
void write_markdown(const std::string& path, const RunInfo& info, const std::vector<CaseResult>& results);
// Checks that `path`'s directory exists and is writable (before any GPU work), else UsageError.
void check_writable(const std::string& path, const std::string& flag);

inline constexpr const char* kReportSchema = "nvfp4bench.report/1";

}  // namespace nvfp4
