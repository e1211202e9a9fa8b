// SPDX-License-Identifier: Apache-2.0
// results.hpp: the in-memory report: finished results and the run's metadata. The runner fills
// CaseResults; app/main.cpp adds the RunInfo; the printers in report/ read both.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/plan.hpp"
#include "core/case_data.hpp"
#include "core/device_info.hpp"
#include "measure/calibrate.hpp"
#include "measure/timing.hpp"
#include "reference/verify.hpp"

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
  std::optional<double> pct_ceiling;    // 100 * tflops / the measured decode+wgmma ceiling (pct_of_ceiling)
  std::optional<double> b200_target_us; // from the config
  std::optional<double> speedup_vs_cublaslt;  // cublaslt median / this median, same case
  std::optional<double> floor_us;       // streaming floor of the same case, same timing method
  std::optional<double> vs_floor;       // this median / floor_us
};

// % of the ceiling of the Hopper wgmma kernels' path (Calibration::decode_wgmma_tflops, measured by
// calibrate on CC 9.0): 100 * tflops / ceiling, for the GEMM family only (gemv is memory-bound).
// nullopt without the ceiling or the rate, never 0 for "unknown".
std::optional<double> pct_of_ceiling(Problem p, const std::optional<double>& tflops,
                                     const std::optional<Calibration>& calibration);

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
  std::string plan;          // how the variant launched this case (Runner::plan), or ""
  std::optional<CheckResult> check;
  std::optional<TimingResult> timing;
  Metrics metrics;
  std::string repro;         // command line that repeats just this case
};

// A plugin loaded with --plugin (run/plugin.hpp), as the report records it.
struct PluginRecord {
  std::string name;                   // the plugin's name: its variants are shown as name:variant
  std::string path;                   // absolute path of the shared library
  int abi_version = 0;                // nvfp4bench_plugin.h's NVFP4BENCH_PLUGIN_ABI_VERSION it was built with
  std::vector<std::string> variants;  // "problem/name:variant"
};

// A gpu-mode submission run with --submission (run/submission.hpp), as the report records it.
struct SubmissionRecord {
  std::string name;                   // py:<file stem>
  std::string path;                   // absolute path of the .py file
  std::string python;                 // "3.12.3 /path/to/python3", or "" when no Python was found
  std::string torch;                  // torch.__version__, or "" when torch was not loaded
  std::string skip;                   // why its cases are SKIP, or "" when they run
  std::vector<std::string> problems;  // the problems it ran as a variant of
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
  std::vector<PluginRecord> plugins;  // --plugin libraries, in load order
  std::vector<SubmissionRecord> submissions;  // --submission files, in command-line order
  // settings.seed / settings.dist of a report read back (its plan has no cases); in a run they
  // are derived from plan.cases instead (report/cells.hpp common_seed / common_dist).
  std::optional<uint64_t> seed;
  std::optional<Dist> dist;
};

}  // namespace nvfp4
