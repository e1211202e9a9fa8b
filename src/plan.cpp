// SPDX-License-Identifier: Apache-2.0
// plan.cpp: command line (CLI11) and JSON config -> RunPlan. Host only; never touches the GPU.
//
// Precedence: command-line flag > config case field > config top-level field > built-in default.
// With --config, --problem keeps only that problem's cases, --role keeps only cases of that role,
// and --shape replaces the config's cases (b200_target_us is still taken from a config case with
// the same problem and shape). Every error is one line and throws UsageError (exit code 2).
//
// ---- config schema ("nvfp4bench.config/1") ----
// {
//   "schema":      "nvfp4bench.config/1",        optional; any other value is an error
//   "description": "free text",                  optional
//   "seed":        1111,                         integer >= 0, default for every case
//   "dist":        "gpumode" | "uniform",        default for every case
//   "variants":    ["naive", "cublaslt"],        non-empty; omitted = every variant
//   "tolerance":   {"rtol": 1e-3, "atol": 1e-3}, each >= 0
//   "timing": {
//     "timer": "events" | "cupti" | "graph",
//     "batch": 1,                                 distinct input sets per sample, integer >= 1
//     "l2": "cold" | "warm",
//     "warmup": 3,                                integer >= 0
//     "min_samples": 10, "max_samples": 1000,     integers >= 1, min <= max
//     "min_time_s": 0.1, "max_time_s": 2.0,       seconds > 0, min <= max
//     "target_rse": 0.001                         >= 0 (0: never stop on noise)
//   },
//   "cases": [                                    non-empty when present
//     {"problem": "gemv",                         gemv | gemm | dual_gemm | group_gemm (required)
//      "shape": "7168x16384x1",                   problem.hpp syntax (required); group_gemm:
//                                                 "MxNxK,MxNxK,..." one per group
//      "role": "test" | "benchmark",              optional, default "test"
//      "b200_target_us": 8.622,                   optional, > 0 (gpu-mode speed of light)
//      "seed": 1111, "dist": "gpumode"}           optional per-case overrides
//   ]
// }
// Every object rejects unknown and duplicate keys.
#include "plan.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "results.hpp"
#include "variant.hpp"

namespace nvfp4 {
namespace {

using Json = nlohmann::ordered_json;

inline constexpr std::string_view kConfigSchema = "nvfp4bench.config/1";

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

// ---- command-line value parsing: "--flag 'value': rule" ----

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

// ---- config reading: "<file>: <field path>: <value>: rule" ----

// Records where a setting came from, for cross-field errors (min <= max).
struct Origin {
  std::string where;  // "--min-samples" or "configs/x.json: timing.min_samples"
};

class ConfigReader {
 public:
  explicit ConfigReader(std::string file) : m_file(std::move(file)) {}

  [[noreturn]] void fail(const std::string& path, const Json* value, std::string_view rule) const {
    if (value) throw UsageError(one_line(fmt::format("{}: {}: {}: {}", m_file, path, show(*value), rule)));
    throw UsageError(one_line(fmt::format("{}: {}: {}", m_file, path, rule)));
  }

  static std::string show(const Json& v) {
    if (v.is_string()) return "'" + v.get<std::string>() + "'";
    std::string s = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (s.size() > 60) s = s.substr(0, 57) + "...";
    return s;
  }

  Json load() const {
    std::ifstream in(m_file, std::ios::binary);
    if (!in) {
      std::error_code ec;
      if (!std::filesystem::exists(m_file, ec))
        throw UsageError(fmt::format("--config {}: file does not exist", m_file));
      throw UsageError(fmt::format("--config {}: cannot be read", m_file));
    }
    std::stringstream buf;
    buf << in.rdbuf();
    const std::string text = buf.str();

    // Duplicate keys: nlohmann keeps the last one silently; reject them with their path.
    struct Frame {
      bool is_array = false;
      std::set<std::string> keys;
      std::string key;
      long index = -1;
    };
    std::vector<Frame> frames;
    auto path_of = [&](const std::string& last) {
      std::string p;
      for (size_t i = 0; i + 1 < frames.size(); ++i) {
        const Frame& f = frames[i];
        p += f.is_array ? fmt::format("[{}]", f.index) : (p.empty() ? "" : ".") + f.key;
      }
      return p.empty() ? last : p + "." + last;
    };
    auto cb = [&](int /*depth*/, nlohmann::json::parse_event_t ev, Json& parsed) {
      using E = nlohmann::json::parse_event_t;
      auto enter_child = [&] {
        if (!frames.empty() && frames.back().is_array) ++frames.back().index;
      };
      switch (ev) {
        case E::object_start: enter_child(); frames.push_back(Frame{false, {}, {}, -1}); break;
        case E::array_start: enter_child(); frames.push_back(Frame{true, {}, {}, -1}); break;
        case E::object_end:
        case E::array_end:
          if (!frames.empty()) frames.pop_back();
          break;
        case E::key: {
          const std::string key = parsed.get<std::string>();
          Frame& f = frames.back();
          if (!f.keys.insert(key).second) fail(path_of(key), nullptr, "duplicate key");
          f.key = key;
          break;
        }
        case E::value: enter_child(); break;
      }
      return true;
    };
    try {
      return Json::parse(text, cb);
    } catch (const nlohmann::json::parse_error& e) {
      // what() is "[json.exception.parse_error.101] parse error at line L, column C: ...".
      std::string msg = e.what();
      if (const size_t p = msg.find("] "); msg.rfind("[json.exception", 0) == 0 && p != std::string::npos)
        msg = msg.substr(p + 2);
      throw UsageError(one_line(fmt::format("{}: malformed JSON: {}", m_file, msg)));
    }
  }

  void expect_object(const Json& j, const std::string& path,
                     std::initializer_list<std::string_view> allowed) const {
    if (!j.is_object()) fail(path.empty() ? "(top level)" : path, &j, "must be a JSON object");
    for (const auto& [key, value] : j.items()) {
      bool ok = false;
      for (std::string_view a : allowed) ok = ok || a == key;
      if (!ok) {
        std::string list;
        for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        fail(path.empty() ? key : path + "." + key, nullptr,
             fmt::format("unknown key (allowed: {})", list));
      }
    }
  }

  std::string get_string(const Json& j, const std::string& path) const {
    if (!j.is_string()) fail(path, &j, "must be a string");
    return j.get<std::string>();
  }

  uint64_t get_seed(const Json& j, const std::string& path) const {
    if (j.is_number_unsigned()) return j.get<uint64_t>();
    if (j.is_number_integer() && j.get<int64_t>() < 0) fail(path, &j, "must be an integer >= 0");
    if (j.is_number_integer()) return static_cast<uint64_t>(j.get<int64_t>());
    fail(path, &j, "must be an integer >= 0");
  }

  int get_int(const Json& j, const std::string& path, int lo) const {
    constexpr int64_t hi = std::numeric_limits<int>::max();
    if (!j.is_number_integer()) fail(path, &j, fmt::format("must be an integer >= {}", lo));
    if (j.is_number_unsigned() && j.get<uint64_t>() > uint64_t(hi)) fail(path, &j, fmt::format("must be <= {}", hi));
    const int64_t v = j.get<int64_t>();
    if (v < lo) fail(path, &j, fmt::format("must be an integer >= {}", lo));
    if (v > hi) fail(path, &j, fmt::format("must be <= {}", hi));
    return static_cast<int>(v);
  }

  double get_double(const Json& j, const std::string& path, bool positive) const {
    if (!j.is_number()) fail(path, &j, "must be a number");
    const double v = j.get<double>();
    if (!std::isfinite(v)) fail(path, &j, "must be finite");
    if (positive && !(v > 0)) fail(path, &j, "must be > 0");
    if (!positive && v < 0) fail(path, &j, "must be >= 0");
    return v;
  }

  const std::string& file() const { return m_file; }

 private:
  std::string m_file;
};

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

ConfigData read_config(const std::string& file) {
  ConfigReader r(file);
  const Json root = r.load();
  ConfigData cfg;
  r.expect_object(root, "", {"schema", "description", "seed", "dist", "variants", "tolerance", "timing", "cases"});

  if (root.contains("schema")) {
    const std::string s = r.get_string(root["schema"], "schema");
    if (s != kConfigSchema) r.fail("schema", &root["schema"], fmt::format("expected '{}'", kConfigSchema));
  }
  if (root.contains("description")) r.get_string(root["description"], "description");
  if (root.contains("seed")) cfg.seed = r.get_seed(root["seed"], "seed");
  if (root.contains("dist")) {
    const auto d = dist_from_text(r.get_string(root["dist"], "dist"));
    if (!d) r.fail("dist", &root["dist"], "unknown distribution (known: gpumode, uniform)");
    cfg.dist = *d;
  }
  if (root.contains("variants")) {
    const Json& v = root["variants"];
    if (!v.is_array()) r.fail("variants", &v, "must be an array of variant names");
    if (v.empty()) r.fail("variants", &v, "must name at least one variant (omit the key for all)");
    for (size_t i = 0; i < v.size(); ++i) {
      const std::string path = fmt::format("variants[{}]", i);
      const std::string name = r.get_string(v[i], path);
      if (!is_known_variant(name)) r.fail(path, &v[i], fmt::format("unknown variant (known: {})", known_variants()));
      cfg.variants.push_back(name);
    }
  }
  if (root.contains("tolerance")) {
    const Json& t = root["tolerance"];
    r.expect_object(t, "tolerance", {"rtol", "atol"});
    if (t.contains("rtol")) cfg.rtol = r.get_double(t["rtol"], "tolerance.rtol", false);
    if (t.contains("atol")) cfg.atol = r.get_double(t["atol"], "tolerance.atol", false);
  }
  if (root.contains("timing")) {
    const Json& t = root["timing"];
    r.expect_object(t, "timing", {"timer", "batch", "l2", "warmup", "min_samples", "max_samples", "min_time_s",
                                  "max_time_s", "target_rse"});
    if (t.contains("timer")) {
      TimerKind k;
      if (!parse_timer(r.get_string(t["timer"], "timing.timer"), k))
        r.fail("timing.timer", &t["timer"], "must be 'events', 'cupti' or 'graph'");
      cfg.timer = k;
    }
    if (t.contains("batch")) cfg.batch = r.get_int(t["batch"], "timing.batch", 1);
    if (t.contains("l2")) {
      const auto m = l2_from_text(r.get_string(t["l2"], "timing.l2"));
      if (!m) r.fail("timing.l2", &t["l2"], "must be 'cold' or 'warm'");
      cfg.l2 = *m;
    }
    if (t.contains("warmup")) cfg.warmup = r.get_int(t["warmup"], "timing.warmup", 0);
    if (t.contains("min_samples")) cfg.min_samples = r.get_int(t["min_samples"], "timing.min_samples", 1);
    if (t.contains("max_samples")) cfg.max_samples = r.get_int(t["max_samples"], "timing.max_samples", 1);
    if (t.contains("min_time_s")) cfg.min_time_s = r.get_double(t["min_time_s"], "timing.min_time_s", true);
    if (t.contains("max_time_s")) cfg.max_time_s = r.get_double(t["max_time_s"], "timing.max_time_s", true);
    if (t.contains("target_rse")) cfg.target_rse = r.get_double(t["target_rse"], "timing.target_rse", false);
  }
  if (root.contains("cases")) {
    const Json& cs = root["cases"];
    if (!cs.is_array()) r.fail("cases", &cs, "must be an array of cases");
    if (cs.empty()) r.fail("cases", &cs, "must list at least one case");
    cfg.has_cases = true;
    for (size_t i = 0; i < cs.size(); ++i) {
      const std::string at = fmt::format("cases[{}]", i);
      const Json& c = cs[i];
      r.expect_object(c, at, {"problem", "shape", "role", "b200_target_us", "seed", "dist"});
      if (!c.contains("problem")) r.fail(at + ".problem", nullptr, "missing (gemv, gemm, dual_gemm or group_gemm)");
      if (!c.contains("shape")) r.fail(at + ".shape", nullptr, "missing");
      CaseSpec spec;
      const auto p = parse_problem(r.get_string(c["problem"], at + ".problem"));
      if (!p) r.fail(at + ".problem", &c["problem"], fmt::format("unknown problem (known: {})", known_problems()));
      spec.problem = *p;
      const std::string shape = r.get_string(c["shape"], at + ".shape");
      try {
        spec.shape = parse_shape(spec.problem, shape);
      } catch (const ShapeError& e) {
        r.fail(at + ".shape", &c["shape"], shape_rule(e, shape));
      }
      spec.role = "test";
      if (c.contains("role")) {
        spec.role = r.get_string(c["role"], at + ".role");
        if (spec.role != "test" && spec.role != "benchmark")
          r.fail(at + ".role", &c["role"], "must be 'test' or 'benchmark'");
      }
      if (c.contains("b200_target_us"))
        spec.b200_target_us = r.get_double(c["b200_target_us"], at + ".b200_target_us", true);
      spec.seed = c.contains("seed") ? r.get_seed(c["seed"], at + ".seed") : cfg.seed.value_or(spec.seed);
      if (c.contains("dist")) {
        const auto d = dist_from_text(r.get_string(c["dist"], at + ".dist"));
        if (!d) r.fail(at + ".dist", &c["dist"], "unknown distribution (known: gpumode, uniform)");
        spec.dist = *d;
      } else {
        spec.dist = cfg.dist.value_or(spec.dist);
      }
      cfg.cases.push_back(std::move(spec));
    }
  }
  return cfg;
}

// Raw flag values; empty optional = flag not given.
struct Flags {
  std::optional<std::string> problem, config, seed, dist, rtol, atol, l2, warmup, min_samples, max_samples,
      min_time, max_time, target_rse, role, json, csv, markdown, dump, device, timer, batch, sol;
  std::vector<std::string> shapes, variants;
  bool verify_only = false, samples = false, profile = false, no_floor = false;
};

void check_dump_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (dir.empty()) throw UsageError("--dump '': directory name is empty");
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) throw UsageError(fmt::format("--dump {}: '{}' is not a directory", dir, dir));
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
      throw UsageError(fmt::format("--dump {}: directory '{}' is not writable", dir, dir));
    return;
  }
  // Not there yet: it is created at run time, so its parent must exist and be writable.
  std::string trimmed = dir;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  check_writable(trimmed, "--dump");
}

}  // namespace

std::optional<RunPlan> parse_command_line(int argc, const char* const* argv) {
  RunPlan plan;
  for (int i = 0; i < argc; ++i) plan.argv.emplace_back(argv[i] ? argv[i] : "");

  CLI::App app{"nvfp4bench: correctness and timing of NVFP4 (e2m1 + e4m3 block-scaled) GEMV/GEMM kernels.\n"
               "Examples:\n"
               "  nvfp4bench --problem gemv --shape 7168x16384x1\n"
               "  nvfp4bench --problem gemm --shape 128x7168x16384 --variant naive,cublaslt\n"
               "  nvfp4bench --problem group_gemm --shape 80x4096x7168,176x4096x7168\n"
               "  nvfp4bench --config configs/gpumode/gemv.json --json out.json\n"
               "  nvfp4bench list\n"
               "  nvfp4bench compare BASE.json NEW.json [--threshold PCT] [--markdown FILE]   (see compare --help)\n"
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
  opt("--config", f.config, "JSON config (schema: top of src/plan.cpp)", "FILE");
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
  opt("--timer", f.timer, "events | cupti | graph (default events)", "NAME");
  opt("--batch", f.batch, "distinct input sets launched back to back per sample; time / N per call (default 1)", "N");
  app.add_flag("--samples", f.samples, "keep every timing sample in the JSON report");
  opt("--sol", f.sol, "spec | measured: rates behind the SOL columns (measured runs calibrate first)", "FROM");
  app.add_flag("--profile", f.profile,
               "run each case's variants once inside an NVTX range <problem>/<shape>/<variant> (for ncu/nsys); "
               "no warm-up, no timing loop");
  app.add_flag("--no-floor", f.no_floor, "do not time the streaming floor of each case");
  opt("--role", f.role, "config cases to run: test | benchmark | all (default all)", "ROLE");
  opt("--json", f.json, "write a JSON report", "FILE");
  opt("--csv", f.csv, "write a CSV report", "FILE");
  opt("--markdown", f.markdown, "write a Markdown report", "FILE");
  opt("--dump", f.dump, "write each case's inputs and outputs as .npy files into DIR", "DIR");
  opt("--device", f.device, "CUDA device index (default 0)", "N");
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
  if (list->parsed()) plan.command = Command::list;

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
      if (!is_known_variant(name))
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
  } else if (cfg.timer) {
    t.timer = *cfg.timer;
  }
  if (f.batch) t.batch = int(flag_int("--batch", *f.batch, 1, 4096));
  else if (cfg.batch) t.batch = *cfg.batch;
  if (f.sol && *f.sol != "spec" && *f.sol != "measured") bad_flag("--sol", *f.sol, "must be spec or measured");
  plan.sol_measured = f.sol && *f.sol == "measured";
  plan.keep_samples = f.samples;
  plan.profile = f.profile;
  plan.floor_enabled = !f.no_floor;
  plan.timing_enabled = !f.verify_only && !f.profile;
  plan.variants = !cli_variants.empty() ? cli_variants : cfg.variants;
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
  if (f.dump) check_dump_dir(*f.dump), plan.outputs.dump_dir = *f.dump;
  return plan;
}

}  // namespace nvfp4
