// SPDX-License-Identifier: Apache-2.0
// plan_parts.hpp: the pieces parse_command_line (plan.cpp) is built from, shared inside cli/ only:
// flags.cpp (the command-line definitions and flag values), config.cpp (the config schema and its
// validation), outputs.cpp (output paths). Every error is one line and throws UsageError.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/plan.hpp"

namespace nvfp4::cli {

std::string one_line(std::string s);
std::optional<Dist> dist_from_text(std::string_view s);
std::optional<L2Mode> l2_from_text(std::string_view s);
std::string known_problems();
std::string known_variants();
bool is_known_variant(std::string_view v);
// The rule part of a ShapeError: "gemm shape '128x0x256': rule" -> "rule".
std::string shape_rule(const ShapeError& e, std::string_view text);

// ---- command line (flags.cpp): "--flag 'value': rule" ----

[[noreturn]] void bad_flag(std::string_view flag, std::string_view value, std::string_view rule);
int64_t flag_int(std::string_view flag, const std::string& text, int64_t lo, int64_t hi);
uint64_t flag_seed(std::string_view flag, const std::string& text);
double flag_double(std::string_view flag, const std::string& text, bool positive);  // positive: > 0, else >= 0

// Raw flag values; empty optional = flag not given.
struct Flags {
  std::optional<std::string> problem, config, seed, dist, rtol, atol, l2, warmup, min_samples, max_samples,
      min_time, max_time, target_rse, role, json, csv, markdown, html, dump, device, timer, batch, sol, python;
  std::vector<std::string> shapes, variants, plugins, submissions;
  bool verify_only = false, samples = false, profile = false, no_floor = false, quiet = false;
  bool list = false;  // the `list` subcommand
};

// Parses argv with the flag definitions. std::nullopt: --help was printed (exit 0).
std::optional<Flags> parse_flags(int argc, const char* const* argv);

// ---- config (config.cpp): "<file>: <field path>: <value>: rule" ----

// Settings read from a config; absent fields stay empty so the command line and defaults apply.
struct ConfigData {
  std::optional<uint64_t> seed;
  std::optional<Dist> dist;
  std::vector<std::string> variants;
  std::optional<double> rtol, atol;
  std::optional<L2Mode> l2;
  std::optional<TimerKind> timer;
  std::optional<int> batch;
  std::optional<int> warmup, min_samples, max_samples;
  std::optional<double> min_time_s, max_time_s, target_rse;
  bool has_cases = false;
  std::vector<CaseSpec> cases;  // seed / dist already resolved against the top level
};

ConfigData read_config(const std::string& file);

// ---- outputs (outputs.cpp) ----

// --dump DIR: creates the directory now (and its parents), so a bad path is a usage error.
void prepare_dump_dir(const std::string& dir);

}  // namespace nvfp4::cli
