// SPDX-License-Identifier: Apache-2.0
// nvfp4bench: benchmark and verify NVFP4 kernels (see README.md).
// Exit codes: 0 all verified, 1 a verification failed, 2 usage or config error,
// 3 CUDA or runtime error (including: no GPU).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fmt/format.h>
#include <iostream>

#include "app/commands.hpp"
#include "cli/plan.hpp"
#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/device_info.hpp"
#include "core/variant.hpp"
#include "git_sha.h"
#include "measure/calibrate.hpp"
#include "measure/cupti_timer.hpp"
#include "report/report.hpp"
#include "run/plugin.hpp"
#include "run/results.hpp"
#include "run/submission.hpp"
#include "run/runner.hpp"

namespace {

// Every kernel is loaded when CUDA starts (CUDA_MODULE_LOADING=EAGER) unless the environment
// chose the mode, or a gpu-mode submission runs in the process (eager loading would load all of
// PyTorch's kernels too): with lazy loading a kernel's time depended on what had run in the
// process before it (gemm 128x7168x2048 `persistent`: 19.8 us as the first variant of its case,
// 17.8 us after another variant, 18.0-18.9 us first with eager loading; docs/perf-notes.md,
// "Harness: kernels loaded eagerly"). Called before any CUDA call; returns the mode as this
// process runs it and who chose it (reports say it).
std::string choose_module_loading(bool submissions) {
  if (const char* mode = std::getenv("CUDA_MODULE_LOADING")) return std::string(mode) + " (CUDA_MODULE_LOADING)";
  if (submissions) return "LAZY (CUDA default: --submission runs PyTorch in this process)";
  setenv("CUDA_MODULE_LOADING", "EAGER", 1);
  return "EAGER (nvfp4bench default)";
}

using namespace nvfp4;

constexpr int kExitOk = 0, kExitFail = 1, kExitUsage = 2, kExitRuntime = 3;

std::string utc_timestamp() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string join_argv(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) {
    if (!s.empty()) s += ' ';
    s += a.find_first_of(" ;'\"") == std::string::npos ? a : "'" + a + "'";
  }
  return s;
}

// `nvfp4bench list`: problems, variants, and whether each runs on this GPU (and why not).
int list_variants(const RunPlan& plan, const std::vector<const VariantInfo*>& variants,
                  const std::vector<PluginRecord>& plugins, const std::vector<SubmissionRecord>& submissions) {
  std::optional<DeviceInfo> dev;
  if (device_count() > 0) dev = query_device(plan.device);
  std::cout << (dev ? fmt::format("device {}: {} (sm_{}{})\n", plan.device, dev->name, dev->cc_major, dev->cc_minor)
                    : std::string("no CUDA GPU found: every variant lists as not runnable here\n"));
  size_t width = 12;  // the variant column fits plugin names (plugin:variant) too
  for (const VariantInfo* v : variants) width = std::max(width, v->name.size());
  std::cout << fmt::format("{:<11} {:<{}} {:<10} {}\n", "problem", "variant", width, "runs here", "summary / reason");
  for (Problem p : kAllProblems) {
    for (const VariantInfo* v : variants) {
      if (v->problem != p) continue;
      // A representative shape of the problem (the first gpu-mode benchmark shape).
      const char* probe = p == Problem::gemv ? "7168x16384x1" : p == Problem::group_gemm ? "80x4096x7168,176x4096x7168"
                                                                                        : "128x7168x16384";
      std::string why = dev ? v->unsupported(*dev, parse_shape(p, probe)) : "no CUDA GPU";
      std::cout << fmt::format("{:<11} {:<{}} {:<10} {}\n", to_string(p), v->name, width, why.empty() ? "yes" : "no",
                               why.empty() ? std::string(v->summary) : why);
    }
  }
  for (const PluginRecord& r : plugins)
    std::cout << fmt::format("plugin {}: {} (ABI version {})\n", r.name, r.path, r.abi_version);
  for (const SubmissionRecord& s : submissions)
    std::cout << fmt::format("submission {}: {} (python {}; {})\n", s.name, s.path,
                             s.python.empty() ? "none" : s.python,
                             s.skip.empty() ? "torch " + s.torch : "its cases SKIP: " + s.skip);
  return kExitOk;
}

int run(const RunPlan& plan_in) {
  // Plugins load before anything else, so that their errors are usage errors (exit 2) on any machine.
  // Submissions likewise (a missing file, no custom_kernel, a name clash); no Python or no torch
  // makes their cases SKIP instead.
  const LoadedPlugins plugins = load_plugins(plan_in.plugins);
  const LoadedSubmissions submissions =
      load_submissions(plan_in.submissions, plan_in.python, plan_in.device, plugins.records);
  std::vector<const VariantInfo*> loaded = plugins.variants;
  loaded.insert(loaded.end(), submissions.variants.begin(), submissions.variants.end());
  check_plugin_variant_names(plan_in.variants, loaded);
  std::vector<const VariantInfo*> variants = all_variants();
  variants.insert(variants.end(), loaded.begin(), loaded.end());
  if (plan_in.command == Command::list)
    return list_variants(plan_in, variants, plugins.records, submissions.records);
  RunPlan plan = plan_in;

  const int count = device_count();
  if (count == 0) {
    std::cerr << "nvfp4bench: no CUDA GPU found (no driver or no device): nothing to run\n";
    return kExitRuntime;
  }
  if (plan.device < 0 || plan.device >= count)
    throw UsageError(fmt::format("--device {}: only {} CUDA device(s) present", plan.device, count));
  CUDA_CHECK(cudaSetDevice(plan.device));

  if (plan.timing_enabled && !plan.timer_explicit) {
    // Kernel time where CUPTI works (it agrees with Nsight Compute; events add launch latency).
    const std::string why_not = cupti_unavailable_reason(nullptr);
    plan.timing.timer = why_not.empty() ? TimerKind::cupti : TimerKind::events;
    plan.timer_reason = why_not.empty() ? "default: CUPTI works on this GPU"
                                        : "default: CUPTI unavailable (" + why_not + ")";
  }

  RunInfo info;
  info.tool_version = NVFP4BENCH_VERSION;
  info.git_sha = NVFP4BENCH_GIT_SHA;
  info.command_line = join_argv(plan.argv);
  info.timestamp = utc_timestamp();
  info.device = query_device(plan.device);
  info.sol_spec = sol_rates_for(info.device->name, info.device->cc());
  info.sol = info.sol_spec;
  info.plan = plan;
  info.plugins = plugins.records;
  info.submissions = submissions.records;

  check_cases_fit(plan, *info.device);  // before anything runs or is written
  if (plan.sol_measured) {
    Stream stream;
    info.calibration = calibrate(*info.device, stream.get());
    const bool fp4 = info.calibration->fp4_tensor_tflops.has_value();
    info.sol = SolRates{"measured on this GPU", info.calibration->hbm_read_gbps * 1e9,
                        (fp4 ? *info.calibration->fp4_tensor_tflops : info.calibration->fp16_tensor_tflops) * 1e12,
                        fp4 ? "fp4-tensor" : "fp16-tensor"};
    info.sol_source = "measured";
  }
  std::cerr << fmt::format("nvfp4bench {} ({}) on {} (sm_{}{}, {} SMs)\n", info.tool_version, info.git_sha,
                           info.device->name, info.device->cc_major, info.device->cc_minor, info.device->sms);
  if (!info.sol) std::cerr << "note: no spec rates for this GPU: SOL columns are empty\n";
  if (plan.timing_enabled)
    std::cerr << fmt::format("timer: {} ({})\n", to_string(plan.timing.timer), plan.timer_reason);

  const RunOutcome outcome = run_plan(plan, *info.device, info.sol, variants, info.calibration);
  print_table(std::cout, outcome.results);
  write_reports(info, outcome.results);

  if (outcome.stopped_on_sticky_error) {
    std::cerr << "nvfp4bench: stopped: " << outcome.sticky_message << " (CUDA context unusable; partial report written)\n";
    return kExitRuntime;
  }
  bool any_error = false, any_fail = false;
  for (const CaseResult& r : outcome.results) {
    any_error |= r.status == Status::error;
    any_fail |= r.status == Status::fail;
  }
  return any_error ? kExitRuntime : any_fail ? kExitFail : kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view sub = argc > 1 ? argv[1] : "";
  if (sub == "compare") return compare_command(argc - 1, argv + 1);
  if (sub == "calibrate") {
    (void)choose_module_loading(false);
    return calibrate_command(argc - 1, argv + 1);
  }
  if (sub == "render") return render_command(argc - 1, argv + 1);
  try {
    std::optional<RunPlan> plan = parse_command_line(argc, argv);
    if (!plan) return kExitOk;  // --help
    plan->module_loading = choose_module_loading(!plan->submissions.empty());
    return run(*plan);
  } catch (const UsageError& e) {
    std::cerr << "nvfp4bench: error: " << e.what() << '\n';
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "nvfp4bench: error: " << e.what() << '\n';
    return kExitRuntime;
  }
}
