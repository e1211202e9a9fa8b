// SPDX-License-Identifier: Apache-2.0
// plan.hpp: what one invocation asks for, from the command line and an optional JSON config
// (command-line flags override the config). Parsing is host-only and never touches the GPU.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/case_data.hpp"
#include "core/problem.hpp"
#include "measure/timing.hpp"
#include "reference/verify.hpp"

namespace nvfp4 {

// Bad usage or configuration: what() is one line naming the file / flag, field, value and rule.
// The process exits with code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct CaseSpec {
  Problem problem = Problem::gemm;
  Shape shape;
  std::string role;                      // "test", "benchmark" or "" (command line)
  uint64_t seed = 1111;
  Dist dist = Dist::gpumode;
  std::optional<double> b200_target_us;  // gpu-mode SOL of the shape, from the config
};

struct OutputPaths {
  std::string json, csv, markdown, html, dump_dir;
};

enum class Command { run, list };

struct RunPlan {
  Command command = Command::run;
  std::vector<CaseSpec> cases;
  std::vector<std::string> variants;  // empty: every variant of each case's problem
  std::vector<std::string> plugins;   // --plugin: shared libraries of plugin variants (run/plugin.hpp)
  std::vector<std::string> submissions;  // --submission: gpu-mode submission files (run/submission.hpp)
  std::optional<std::string> python;  // --python: the Python of the submissions (default: python3 on PATH)
  Tolerance tolerance;
  TimingOptions timing;
  bool timer_explicit = false;        // --timer or the config's timing.timer chose the timer
  std::string timer_reason;           // why timing.timer is what it is (reports say it)
  std::string module_loading;         // CUDA_MODULE_LOADING as run, and who chose it ("" when unknown)
  bool timing_enabled = true;         // --verify-only turns it off
  bool keep_samples = false;          // --samples: every sample in the JSON
  bool sol_measured = false;          // --sol measured: calibrate first, SOL from measured rates
  bool profile = false;               // --profile: one launch per variant inside an NVTX range
  bool floor_enabled = true;          // time the streaming floor of every case (--no-floor)
  bool quiet = false;                 // --quiet: no progress line on stderr (warnings still)
  OutputPaths outputs;
  int device = 0;
  std::string config_path;            // "" when none
  std::vector<std::string> argv;      // the command line as given
};

// Parses argv (argv[0] is the program). Throws UsageError. `--help` prints and returns
// std::nullopt (exit 0).
std::optional<RunPlan> parse_command_line(int argc, const char* const* argv);

// Checks that `path`'s directory exists and is writable (before any GPU work), else UsageError.
void check_writable(const std::string& path, const std::string& flag);

}  // namespace nvfp4
