// SPDX-License-Identifier: Apache-2.0
// plan.cpp: command line + JSON config -> RunPlan. Host only; never touches the GPU.
//
// Precedence: command-line flag > config case field > config top-level field > built-in default.
// With --config, --problem keeps only that problem's cases, --role keeps only cases of that role,
// and --shape replaces the config's cases (b200_target_us is still taken from a config case with
// the same problem and shape). Every error is one line and throws UsageError (exit code 2).
// The flags are defined in flags.cpp; the config schema is documented at the top of config.cpp.
#include "cli/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "cli/plan_parts.hpp"

namespace nvfp4 {

using namespace cli;

namespace {

// Records where a setting came from, for cross-field errors (min <= max).
struct Origin {
  std::string where;  // "--min-samples" or "configs/x.json: timing.min_samples"
};

}  // namespace

std::optional<RunPlan> parse_command_line(int argc, const char* const* argv) {
  RunPlan plan;
  for (int i = 0; i < argc; ++i) plan.argv.emplace_back(argv[i] ? argv[i] : "");
  const std::optional<Flags> parsed = parse_flags(argc, argv);
  if (!parsed) return std::nullopt;  // --help
  const Flags& f = *parsed;
  if (f.list) plan.command = Command::list;

  // ---- values that do not depend on the config ----
  std::optional<Problem> problem;
  if (f.problem) {
    problem = parse_problem(*f.problem);
    if (!problem) bad_flag("--problem", *f.problem, fmt::format("unknown problem (known: {})", known_problems()));
  }
  std::vector<std::string> cli_variants;
  for (const std::string& item : f.variants) {
    size_t pos = 0;
    while (true) {
      const size_t comma = item.find(',', pos);
      const std::string name = item.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      if (name.empty()) bad_flag("--variant", item, "empty variant name");
      // A plugin's variant ("plugin:name") is checked once the plugins are loaded (run/plugin.cpp).
      const bool plugin_name = name.find(':') != std::string::npos;
      if (plugin_name && f.plugins.empty() && f.submissions.empty())
        bad_flag("--variant", name,
                 "a plugin or submission variant (plugin:name, py:file) needs --plugin PATH.so or --submission FILE.py");
      if (!plugin_name && !is_known_variant(name))
        bad_flag("--variant", name, fmt::format("unknown variant (known: {})", known_variants()));
      if (std::find(cli_variants.begin(), cli_variants.end(), name) == cli_variants.end())
        cli_variants.push_back(name);
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
  }
  std::string role = "all";
  if (f.role) {
    role = *f.role;
    if (role != "test" && role != "benchmark" && role != "all") bad_flag("--role", role, "must be test, benchmark or all");
  }
  if (!f.shapes.empty() && !problem) throw UsageError("--shape needs --problem (gemv, gemm, dual_gemm or group_gemm)");
  if (problem && f.shapes.empty() && !f.config && plan.command == Command::run)
    throw UsageError(fmt::format("--problem {} needs --shape (or --config)", *f.problem));

  // ---- config ----
  ConfigData cfg;
  if (f.config) {
    plan.config_path = *f.config;
    cfg = read_config(*f.config);
  }
  const std::string cfg_at = plan.config_path + ": ";

  // ---- settings: flag > config > default ----
  std::optional<uint64_t> seed_flag;
  if (f.seed) seed_flag = flag_seed("--seed", *f.seed);
  std::optional<Dist> dist_flag;
  if (f.dist) {
    dist_flag = dist_from_text(*f.dist);
    if (!dist_flag) bad_flag("--dist", *f.dist, "unknown distribution (known: gpumode, uniform)");
  }
  plan.tolerance.rtol = f.rtol ? flag_double("--rtol", *f.rtol, false) : cfg.rtol.value_or(plan.tolerance.rtol);
  plan.tolerance.atol = f.atol ? flag_double("--atol", *f.atol, false) : cfg.atol.value_or(plan.tolerance.atol);

  TimingOptions& t = plan.timing;
  if (f.l2) {
    const auto m = l2_from_text(*f.l2);
    if (!m) bad_flag("--l2", *f.l2, "must be cold or warm");
    t.l2 = *m;
  } else if (cfg.l2) {
    t.l2 = *cfg.l2;
  }
  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  Origin min_s_from{"default"}, max_s_from{"default"}, min_t_from{"default"}, max_t_from{"default"};
  if (f.warmup) t.warmup = int(flag_int("--warmup", *f.warmup, 0, kIntMax));
  else if (cfg.warmup) t.warmup = *cfg.warmup;
  if (f.min_samples) t.min_samples = int(flag_int("--min-samples", *f.min_samples, 1, kIntMax)), min_s_from = {"--min-samples"};
  else if (cfg.min_samples) t.min_samples = *cfg.min_samples, min_s_from = {cfg_at + "timing.min_samples"};
  if (f.max_samples) t.max_samples = int(flag_int("--max-samples", *f.max_samples, 1, kIntMax)), max_s_from = {"--max-samples"};
  else if (cfg.max_samples) t.max_samples = *cfg.max_samples, max_s_from = {cfg_at + "timing.max_samples"};
  if (f.min_time) t.min_time_s = flag_double("--min-time", *f.min_time, true), min_t_from = {"--min-time"};
  else if (cfg.min_time_s) t.min_time_s = *cfg.min_time_s, min_t_from = {cfg_at + "timing.min_time_s"};
  if (f.max_time) t.max_time_s = flag_double("--max-time", *f.max_time, true), max_t_from = {"--max-time"};
  else if (cfg.max_time_s) t.max_time_s = *cfg.max_time_s, max_t_from = {cfg_at + "timing.max_time_s"};
  if (f.target_rse) t.target_rse = flag_double("--target-rse", *f.target_rse, false);
  else if (cfg.target_rse) t.target_rse = *cfg.target_rse;
  // A default on one side yields to an explicit value on the other; two explicit values conflict.
  if (t.min_samples > t.max_samples && min_s_from.where == "default") t.min_samples = t.max_samples;
  if (t.min_samples > t.max_samples && max_s_from.where == "default") t.max_samples = t.min_samples;
  if (t.min_time_s > t.max_time_s && min_t_from.where == "default") t.min_time_s = t.max_time_s;
  if (t.min_time_s > t.max_time_s && max_t_from.where == "default") t.max_time_s = t.min_time_s;
  if (t.min_samples > t.max_samples)
    throw UsageError(fmt::format("{} {}: min_samples must be <= max_samples ({}, from {})", min_s_from.where,
                                 t.min_samples, t.max_samples, max_s_from.where));
  if (t.min_time_s > t.max_time_s)
    throw UsageError(fmt::format("{} {}: min time must be <= max time ({} s, from {})", min_t_from.where,
                                 t.min_time_s, t.max_time_s, max_t_from.where));
  if (f.timer) {
    if (!parse_timer(*f.timer, t.timer)) bad_flag("--timer", *f.timer, "must be events, cupti or graph");
    plan.timer_reason = fmt::format("--timer {}", *f.timer);
  } else if (cfg.timer) {
    t.timer = *cfg.timer;
    plan.timer_reason = fmt::format("{}: timing.timer", plan.config_path);
  }
  // No choice given: app/main.cpp picks cupti where CUPTI works on the GPU, else events.
  plan.timer_explicit = f.timer.has_value() || cfg.timer.has_value();
  if (f.batch) t.batch = int(flag_int("--batch", *f.batch, 1, 4096));
  else if (cfg.batch) t.batch = *cfg.batch;
  if (f.sol && *f.sol != "spec" && *f.sol != "measured") bad_flag("--sol", *f.sol, "must be spec or measured");
  plan.sol_measured = f.sol && *f.sol == "measured";
  plan.keep_samples = f.samples;
  plan.quiet = f.quiet;
  plan.profile = f.profile;
  plan.floor_enabled = !f.no_floor;
  plan.timing_enabled = !f.verify_only && !f.profile;
  plan.variants = !cli_variants.empty() ? cli_variants : cfg.variants;
  plan.plugins = f.plugins;
  plan.submissions = f.submissions;
  plan.python = f.python;
  if (f.device) plan.device = int(flag_int("--device", *f.device, 0, 1023));

  // ---- cases ----
  if (!f.shapes.empty()) {
    for (const std::string& text : f.shapes) {
      CaseSpec c;
      c.problem = *problem;
      try {
        c.shape = parse_shape(c.problem, text);
      } catch (const ShapeError& e) {
        bad_flag("--shape", text, shape_rule(e, text));
      }
      c.seed = cfg.seed.value_or(c.seed);
      c.dist = cfg.dist.value_or(c.dist);
      for (const CaseSpec& k : cfg.cases)  // keep the config's SOL target for the same shape
        if (k.problem == c.problem && k.shape == c.shape && k.b200_target_us) c.b200_target_us = k.b200_target_us;
      plan.cases.push_back(std::move(c));
    }
  } else if (cfg.has_cases) {
    for (const CaseSpec& c : cfg.cases) {
      if (problem && c.problem != *problem) continue;
      if (role != "all" && c.role != role) continue;
      plan.cases.push_back(c);
    }
    if (plan.cases.empty() && plan.command == Command::run)
      throw UsageError(fmt::format("{}: no case matches{}{}", plan.config_path,
                                   problem ? fmt::format(" --problem {}", *f.problem) : "",
                                   role != "all" ? fmt::format(" --role {}", role) : ""));
  } else if (plan.command == Command::run) {
    if (f.config) throw UsageError(fmt::format("{}: cases: missing, and no --problem/--shape given", plan.config_path));
    throw UsageError("nothing to run: give --problem and --shape, or --config (see --help)");
  }
  for (CaseSpec& c : plan.cases) {
    if (seed_flag) c.seed = *seed_flag;
    if (dist_flag) c.dist = *dist_flag;
  }

  // ---- outputs: fail on bad paths before any GPU work ----
  if (f.json) check_writable(*f.json, "--json"), plan.outputs.json = *f.json;
  if (f.csv) check_writable(*f.csv, "--csv"), plan.outputs.csv = *f.csv;
  if (f.markdown) check_writable(*f.markdown, "--markdown"), plan.outputs.markdown = *f.markdown;
  if (f.html) check_writable(*f.html, "--html"), plan.outputs.html = *f.html;
  if (f.dump) prepare_dump_dir(*f.dump), plan.outputs.dump_dir = *f.dump;
  return plan;
}

}  // namespace nvfp4

