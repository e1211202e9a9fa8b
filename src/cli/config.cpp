// SPDX-License-Identifier: Apache-2.0
// config.cpp: JSON config -> ConfigData: the schema, and its validation. Host only.
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
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cli/plan_parts.hpp"

namespace nvfp4::cli {
namespace {

using Json = nlohmann::ordered_json;

inline constexpr std::string_view kConfigSchema = "nvfp4bench.config/1";

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
    std::error_code dir_ec;
    if (std::filesystem::is_directory(m_file, dir_ec))
      throw UsageError(fmt::format("--config {}: is a directory, not a JSON file", m_file));
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
    // The path of the value being parsed now (its key has been seen; its value event has not).
    auto value_path = [&] {
      std::string p;
      for (size_t i = 0; i < frames.size(); ++i) {
        const Frame& f = frames[i];
        if (f.is_array) p += fmt::format("[{}]", i + 1 == frames.size() ? f.index + 1 : f.index);
        else p += (p.empty() ? "" : ".") + f.key;
      }
      return p.empty() ? std::string("(top level)") : p;
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
    } catch (const nlohmann::json::out_of_range& e) {
      // A number too large for a double ("1e400"): what() ends "number overflow parsing '1e400'".
      const std::string msg = e.what();
      const size_t open = msg.find('\'');
      const size_t close = open == std::string::npos ? open : msg.find('\'', open + 1);
      const std::string value = close == std::string::npos ? "" : msg.substr(open + 1, close - open - 1);
      throw UsageError(one_line(fmt::format("{}: {}: {}: out of range (must be a finite number)", m_file,
                                            value_path(), value.empty() ? "(number)" : value)));
    } catch (const nlohmann::json::exception& e) {
      throw UsageError(one_line(fmt::format("{}: cannot be read as JSON: {}", m_file, e.what())));
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

}  // namespace

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


}  // namespace nvfp4::cli
