// SPDX-License-Identifier: Apache-2.0
// flags.cpp: the command-line definitions (CLI11) and the parsing of flag values. The settings
// they feed are merged with a config in plan.cpp.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "cli/plan_parts.hpp"
#include "core/variant.hpp"

namespace nvfp4::cli {

std::optional<Dist> dist_from_text(std::string_view s) {
  Dist d;
  return parse_dist(s, d) ? std::optional(d) : std::nullopt;
}

std::optional<L2Mode> l2_from_text(std::string_view s) {
  L2Mode m;
  return parse_l2(s, m) ? std::optional(m) : std::nullopt;
}

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

std::string known_problems() {
  std::string out;
  for (Problem p : kAllProblems) out += (out.empty() ? "" : ", ") + std::string(to_string(p));
  return out;
}

std::string known_variants() {
  std::string out;
  for (std::string_view v : kVariantNames) out += (out.empty() ? "" : ", ") + std::string(v);
  return out;
}

bool is_known_variant(std::string_view v) {
  for (std::string_view k : kVariantNames)
    if (k == v) return true;
  return false;
}

// The rule part of a ShapeError: "gemm shape '128x0x256': rule" -> "rule", so that callers can
// print "<where>: '<text>': <rule>" without repeating the shape.
std::string shape_rule(const ShapeError& e, std::string_view text) {
  const std::string what = e.what();
  const std::string marker = "'" + std::string(text) + "': ";
  const size_t pos = what.find(marker);
  return pos == std::string::npos ? what : what.substr(pos + marker.size());
}


[[noreturn]] void bad_flag(std::string_view flag, std::string_view value, std::string_view rule) {
  throw UsageError(one_line(fmt::format("{} '{}': {}", flag, value, rule)));
}

int64_t flag_int(std::string_view flag, const std::string& text, int64_t lo, int64_t hi) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    bad_flag(flag, text, "must be a whole number");
  if (v < lo) bad_flag(flag, text, fmt::format("must be >= {}", lo));
  if (v > hi) bad_flag(flag, text, fmt::format("must be <= {}", hi));
  return v;
}

uint64_t flag_seed(std::string_view flag, const std::string& text) {
  uint64_t v = 0;
  if (!text.empty() && text[0] == '-') bad_flag(flag, text, "must be an integer >= 0");
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    bad_flag(flag, text, "must be an integer >= 0");
  return v;
}

// `positive`: > 0, else >= 0.
double flag_double(std::string_view flag, const std::string& text, bool positive) {
  char* end = nullptr;
  errno = 0;
  const double v = text.empty() ? 0.0 : std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v))
    bad_flag(flag, text, "must be a finite number");
  if (positive && !(v > 0)) bad_flag(flag, text, "must be > 0");
  if (!positive && v < 0) bad_flag(flag, text, "must be >= 0");
  return v;
}

std::optional<Flags> parse_flags(int argc, const char* const* argv) {

  CLI::App app{"nvfp4bench: correctness and timing of NVFP4 (e2m1 + e4m3 block-scaled) GEMV/GEMM kernels.\n"
               "Examples:\n"
               "  nvfp4bench --problem gemv --shape 7168x16384x1\n"
               "  nvfp4bench --problem gemm --shape 128x7168x16384 --variant naive,cublaslt\n"
               "  nvfp4bench --problem group_gemm --shape 80x4096x7168,176x4096x7168\n"
               "  nvfp4bench --config configs/gpumode/gemv.json --json out.json\n"
               "  nvfp4bench list\n"
               "  nvfp4bench compare BASE.json NEW.json [--threshold PCT] [--markdown FILE] [--html FILE]   (see compare --help)\n"
               "  nvfp4bench render REPORT.json [--html FILE] [--markdown FILE] [--csv FILE]   (no GPU needed)\n"
               "  nvfp4bench calibrate [--device N] [--json FILE]",
               "nvfp4bench"};
  Flags f;
  auto opt = [&](const char* name, std::optional<std::string>& dst, const char* help, const char* type = "TEXT") {
    app.add_option_function<std::string>(name, [&dst](const std::string& v) { dst = v; }, help)->type_name(type);
  };
  opt("--problem", f.problem, "gemv | gemm | dual_gemm | group_gemm", "NAME");
  app.add_option("--shape", f.shapes,
                 "case shape (repeatable): gemv MxKxL, gemm/dual_gemm MxNxK[xL], group_gemm MxNxK,MxNxK,...")
      ->type_name("SHAPE");
  app.add_option("--variant", f.variants, "comma list of variants (default: every variant that can run)")
      ->type_name("LIST");
  app.add_option("--plugin", f.plugins,
                 "load plugin variants from a shared library (repeatable; ABI: src/core/nvfp4bench_plugin.h)")
      ->type_name("PATH.so");
  app.add_option("--submission", f.submissions,
                 "run a gpu-mode submission.py (custom_kernel(data), through torch) as variant py:<file stem>; "
                 "PROBLEM=FILE.py for one problem only (repeatable)")
      ->type_name("[PROBLEM=]FILE.py");
  opt("--python", f.python, "the Python (with torch) of --submission (default: python3 on PATH)", "PATH");
  opt("--config", f.config, "JSON config (schema: top of src/cli/config.cpp)", "FILE");
  opt("--seed", f.seed, "RNG seed, integer >= 0 (default 1111)", "N");
  opt("--dist", f.dist, "input distribution: gpumode | uniform (default gpumode)", "NAME");
  opt("--rtol", f.rtol, "relative tolerance (default 1e-3)", "X");
  opt("--atol", f.atol, "absolute tolerance (default 1e-3)", "X");
  opt("--l2", f.l2, "cold | warm (default cold: L2 flushed before each sample)", "MODE");
  opt("--warmup", f.warmup, "untimed calls before sampling (default 3)", "N");
  opt("--min-samples", f.min_samples, "minimum number of timing samples (default 10)", "N");
  opt("--max-samples", f.max_samples, "maximum number of timing samples (default 1000)", "N");
  opt("--min-time", f.min_time, "minimum sampling time per case before the noise rule applies (default 0.1)", "SEC");
  opt("--max-time", f.max_time, "time budget per case (default 2)", "SEC");
  opt("--target-rse", f.target_rse, "stop when the relative standard error of the mean is below this (default 0.001)", "X");
  app.add_flag("--verify-only", f.verify_only, "check results only, no timing");
  opt("--timer", f.timer, "events | cupti | graph (default: cupti where CUPTI works on the GPU, else events)", "NAME");
  opt("--batch", f.batch, "distinct input sets launched back to back per sample; time / N per call (default 1)", "N");
  app.add_flag("--samples", f.samples, "keep every timing sample in the JSON report");
  opt("--sol", f.sol,
      "spec | measured: rates behind the SOL columns (measured runs calibrate first; on CC 9.0 that adds the "
      "%ceiling column: TFLOP/s against the measured decode+wgmma ceiling)",
      "FROM");
  app.add_flag("--profile", f.profile,
               "run each case's variants once inside an NVTX range <problem>/<shape>/<variant> (for ncu/nsys); "
               "no warm-up, no timing loop");
  app.add_flag("--no-floor", f.no_floor, "do not time the streaming floor of each case");
  opt("--role", f.role, "config cases to run: test | benchmark | all (default all)", "ROLE");
  opt("--json", f.json, "write a JSON report", "FILE");
  opt("--csv", f.csv, "write a CSV report", "FILE");
  opt("--markdown", f.markdown, "write a Markdown report", "FILE");
  opt("--html", f.html, "write a self-contained HTML report (tables and charts, works offline)", "FILE");
  opt("--dump", f.dump, "write each case's inputs and outputs as .npy files into DIR", "DIR");
  opt("--device", f.device, "CUDA device index (default 0)", "N");
  app.add_flag("--quiet", f.quiet, "no progress line on stderr (warnings are still printed)");
  CLI::App* list = app.add_subcommand("list", "list problems and variants");
  list->fallthrough();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    app.exit(e);
    return std::nullopt;
  } catch (const CLI::CallForAllHelp& e) {
    app.exit(e);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    throw UsageError(one_line(fmt::format("{} (see --help)", e.what())));
  }
  f.list = list->parsed();
  return f;
}

}  // namespace nvfp4::cli
