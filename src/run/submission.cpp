// SPDX-License-Identifier: Apache-2.0
#include "run/submission.hpp"

#include <fmt/format.h>

#include <deque>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "cli/plan.hpp"
#include "core/nvfp4.hpp"
#include "run/bound_variant.hpp"
#include "run/plugin.hpp"
#include "run/python_host.hpp"

namespace nvfp4 {

namespace {

using Json = nlohmann::json;

constexpr std::string_view kTimingNote =
    "the whole custom_kernel(data) call is timed (cupti: every kernel, memset and copy it launches; events: its "
    "host time too); a returned tensor other than c is copied into c after checked calls only";

// One --submission file: its module in the embedded interpreter, or why its cases SKIP.
struct SubmissionFile {
  std::string spec, path, name;
  std::vector<Problem> problems;
  EmbeddedPython* python = nullptr;
  int64_t module_id = 0;
  std::string skip;
  std::string summary;
};

struct SubmissionVariant final : BoundVariant {
  const SubmissionFile* file = nullptr;
  Problem problem = Problem::gemm;
  VariantInfo info{};
  std::string unsupported(const DeviceInfo&, const Shape&) const override { return file->skip; }
  std::unique_ptr<Runner> prepare(const CaseView& c, cudaStream_t stream) const override;
};

// Live until exit: VariantInfo::name points into them.
std::deque<SubmissionFile>& files() {
  static std::deque<SubmissionFile> s;
  return s;
}
std::deque<SubmissionVariant>& variants() {
  static std::deque<SubmissionVariant> s;
  return s;
}

Json operand_json(const nvfp4bench_operand& o) {
  return Json{{"data", reinterpret_cast<uintptr_t>(o.data)},
              {"sf", reinterpret_cast<uintptr_t>(o.sf)},
              {"sf_blocked", reinterpret_cast<uintptr_t>(o.sf_blocked)},
              {"rows", o.rows},
              {"k", o.k},
              {"l", o.l},
              {"data_stride_row", o.data_stride_row},
              {"data_stride_l", o.data_stride_l},
              {"sf_stride_row", o.sf_stride_row},
              {"sf_stride_l", o.sf_stride_l},
              {"sf_blocked_stride_l", o.sf_blocked_stride_l}};
}

// One submission on one input set: gpu-mode's tuple, built once, and custom_kernel called on it.
class SubmissionRunner final : public Runner {
 public:
  SubmissionRunner(const SubmissionFile& f, const CaseView& c) : m_py(*f.python) {
    const PluginCaseView view = to_plugin_view(c);
    Json groups = Json::array();
    for (const nvfp4bench_group& g : view.groups)
      groups.push_back(Json{{"m", g.dims.m},
                            {"n", g.dims.n},
                            {"k", g.dims.k},
                            {"l", g.dims.l},
                            {"a", operand_json(g.a)},
                            {"b", operand_json(g.b)},
                            {"b2", operand_json(g.b2)},
                            {"c", reinterpret_cast<uintptr_t>(g.c)},
                            {"c_stride_row", g.c_stride_row},
                            {"c_stride_l", g.c_stride_l}});
    const Json req{{"id", f.module_id}, {"problem", std::string(to_string(c.problem))}, {"groups", groups}};
    m_id = Json::parse(m_py.call("prepare", req.dump())).at("id").get<int64_t>();
  }
  ~SubmissionRunner() override {
    try {
      m_py.call("release", m_id);
    } catch (const std::exception&) {  // nothing to do at teardown; the harness printed why
    }
  }
  SubmissionRunner(const SubmissionRunner&) = delete;
  SubmissionRunner& operator=(const SubmissionRunner&) = delete;

  void run(cudaStream_t stream) override {
    if (std::string err = m_py.call("call", m_id, reinterpret_cast<intptr_t>(stream)); !err.empty())
      throw std::runtime_error(err);
  }
  void finish(cudaStream_t stream) override {
    if (std::string why = m_py.call("publish", m_id, reinterpret_cast<intptr_t>(stream)); !why.empty())
      throw OutputContractError(why);
  }
  std::string not_capturable() const override {
    return "a Python submission: torch may allocate, synchronise or launch on other streams inside the call";
  }

 private:
  EmbeddedPython& m_py;
  int64_t m_id = 0;
};

std::unique_ptr<Runner> SubmissionVariant::prepare(const CaseView& c, cudaStream_t) const {
  return std::make_unique<SubmissionRunner>(*file, c);
}

// "[problem=]path" -> the problems and the path.
void parse_spec(const std::string& spec, SubmissionFile& f) {
  f.path = spec;
  f.problems.assign(std::begin(kAllProblems), std::end(kAllProblems));
  if (const size_t eq = spec.find('='); eq != std::string::npos) {
    if (const auto p = parse_problem(spec.substr(0, eq))) {
      f.problems = {*p};
      f.path = spec.substr(eq + 1);
    }
  }
}

std::string variant_name(const std::filesystem::path& p) {
  std::string stem = p.stem().string();
  for (char& ch : stem)
    if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
          ch == '.' || ch == '-'))
      ch = '_';
  return "py:" + stem;
}

}  // namespace

LoadedSubmissions load_submissions(const std::vector<std::string>& specs, const std::optional<std::string>& python,
                                   int device, const std::vector<PluginRecord>& plugins) {
  LoadedSubmissions out;
  if (specs.empty()) return out;
  for (const PluginRecord& r : plugins)
    if (r.name == "py")
      throw UsageError(fmt::format("--plugin '{}': name clash: the plugin name 'py' is --submission's", r.path));

  // The files: present, and no two of one name.
  std::vector<SubmissionFile*> loaded;
  std::vector<std::string> abs_paths;
  for (const std::string& spec : specs) {
    SubmissionFile& f = files().emplace_back();
    f.spec = spec;
    parse_spec(spec, f);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(f.path, ec))
      throw UsageError(fmt::format("--submission '{}': no such file", spec));
    f.path = std::filesystem::absolute(f.path, ec).lexically_normal().string();
    f.name = variant_name(f.path);
    for (const SubmissionFile* other : loaded)
      if (other->name == f.name)
        throw UsageError(fmt::format("--submission '{}': name clash: {} is already '{}' (rename one file)", spec,
                                     f.name, other->path));
    loaded.push_back(&f);
    abs_paths.push_back(f.path);
  }

  // The Python: found, probed (each file's syntax and custom_kernel checked there), started.
  std::string why;
  std::optional<PythonProbe> probe;
  EmbeddedPython* py = nullptr;
  if (const auto exe = find_python(python, why)) {
    probe = probe_python(*exe, abs_paths, why);
    if (probe) {
      for (size_t i = 0; i < loaded.size(); ++i)
        if (!probe->file_problems[i].empty())
          throw UsageError(fmt::format("--submission '{}': {}", loaded[i]->spec, probe->file_problems[i]));
      py = EmbeddedPython::start(*probe, why);
    }
  }

  for (size_t i = 0; i < loaded.size(); ++i) {
    SubmissionFile& f = *loaded[i];
    SubmissionRecord rec{f.name, f.path, probe ? probe->full_version + " " + probe->executable : "", "", "", {}};
    f.skip = why;
    if (py) {
      const Json req{{"path", f.path},
                     {"module", fmt::format("nvfp4bench_submission_{}", i)},
                     {"sys_path", probe->sys_path},
                     {"executable", probe->executable},
                     {"device", device}};
      const Json r = Json::parse(py->call("load", req.dump()));
      if (r.contains("error")) throw UsageError(fmt::format("--submission '{}': {}", f.spec, r["error"].get<std::string>()));
      if (r.contains("skip")) {
        f.skip = r["skip"].get<std::string>();
      } else {
        f.python = py;
        f.module_id = r.at("id").get<int64_t>();
        rec.torch = r.at("torch").get<std::string>();
      }
    }
    rec.skip = f.skip;
    f.summary = fmt::format("gpu-mode submission {} (custom_kernel through torch{})", f.path,
                            rec.torch.empty() ? "" : " " + rec.torch);
    for (Problem p : f.problems) {
      SubmissionVariant& v = variants().emplace_back();
      v.file = &f;
      v.problem = p;
      v.info = bind_variant(v, p, f.name, f.summary, kTimingNote, fmt::format("--submission '{}'", f.spec));
      out.variants.push_back(&v.info);
      rec.problems.emplace_back(to_string(p));
    }
    out.records.push_back(std::move(rec));
  }
  return out;
}

}  // namespace nvfp4
