// SPDX-License-Identifier: Apache-2.0
// plugin.cpp: loading plugin libraries (dlopen) and wrapping their C variants as VariantInfos
// (run/bound_variant.hpp).
#include "run/plugin.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "cli/plan.hpp"
#include "core/nvfp4.hpp"
#include "run/bound_variant.hpp"

namespace nvfp4 {

namespace {

struct PluginVariant final : BoundVariant {
  const nvfp4bench_variant* c = nullptr;  // in the plugin's table
  std::string full_name;                  // plugin:variant
  std::string summary, timing_note;
  VariantInfo info{};
  std::string unsupported(const DeviceInfo& dev, const Shape& shape) const override;
  std::unique_ptr<Runner> prepare(const CaseView& c, cudaStream_t stream) const override;
};

// Lives until exit: VariantInfo::name points into it, and libraries are never unloaded.
std::deque<PluginVariant>& storage() {
  static std::deque<PluginVariant> s;
  return s;
}

// The runner of one plugin variant on one input set.
class PluginRunner final : public Runner {
 public:
  PluginRunner(const PluginVariant& v, const CaseView& c, cudaStream_t stream) : m_v(v), m_view(to_plugin_view(c)) {
    m_case = m_view.as_case();
    if (const int32_t rc = m_v.c->prepare(&m_case, stream, &m_handle); rc != 0)
      throw std::runtime_error(fmt::format("plugin variant {}: prepare returned {}", m_v.full_name, rc));
  }
  ~PluginRunner() override {
    if (m_handle) m_v.c->destroy(m_handle);
  }
  PluginRunner(const PluginRunner&) = delete;
  PluginRunner& operator=(const PluginRunner&) = delete;
  void run(cudaStream_t stream) override {
    if (const int32_t rc = m_v.c->run(m_handle, stream); rc != 0)
      throw std::runtime_error(fmt::format("plugin variant {}: run returned {}", m_v.full_name, rc));
  }

 private:
  const PluginVariant& m_v;
  PluginCaseView m_view;
  nvfp4bench_case m_case{};
  void* m_handle = nullptr;
};

std::string PluginVariant::unsupported(const DeviceInfo& dev, const Shape& shape) const {
  if (!c->unsupported) return "";
  std::vector<nvfp4bench_dims> dims;
  for (const Dims& d : shape.groups) dims.push_back({d.m, d.n, d.k, d.l});
  const char* why = c->unsupported(dims.data(), static_cast<int32_t>(dims.size()), dev.cc_major, dev.cc_minor);
  return why ? std::string(why) : std::string();
}

std::unique_ptr<Runner> PluginVariant::prepare(const CaseView& cv, cudaStream_t stream) const {
  return std::make_unique<PluginRunner>(*this, cv, stream);
}

bool valid_name(const char* s) {
  if (!s || !*s) return false;
  for (const char* p = s; *p; ++p)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' || *p == '-')) return false;
  return true;
}

std::string one_line(std::string s) {
  for (char& ch : s)
    if (ch == '\n' || ch == '\r') ch = ' ';
  return s;
}

Problem to_problem(nvfp4bench_problem p) {
  switch (p) {
    case NVFP4BENCH_GEMV: return Problem::gemv;
    case NVFP4BENCH_GEMM: return Problem::gemm;
    case NVFP4BENCH_DUAL_GEMM: return Problem::dual_gemm;
    case NVFP4BENCH_GROUP_GEMM: return Problem::group_gemm;
  }
  return Problem::gemm;
}

nvfp4bench_operand to_operand(const Fp4Matrix& m) {
  nvfp4bench_operand o{};
  if (!m.data) return o;  // b2 outside dual_gemm
  const SfGeometry g{m.rows, m.k / kSfVec, m.l};
  o.data = m.data;
  o.sf = m.sf;
  o.sf_blocked = m.sf_blocked;
  o.rows = m.rows;
  o.k = m.k;
  o.l = m.l;
  o.data_stride_row = m.k / 2;
  o.data_stride_l = m.rows * (m.k / 2);
  o.sf_stride_row = g.sf_cols;
  o.sf_stride_l = m.rows * g.sf_cols;
  o.sf_blocked_stride_l = g.blocked_bytes_per_batch();
  return o;
}

// One library: opened, checked, its table returned. Throws UsageError naming the file.
const nvfp4bench_plugin* open_plugin(const std::string& path, std::string& abs) {
  auto fail = [&](const std::string& rule) { throw UsageError(one_line(fmt::format("--plugin '{}': {}", path, rule))); };
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) fail("no such file");
  abs = std::filesystem::absolute(path, ec).lexically_normal().string();
  void* lib = dlopen(abs.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* err = dlerror();
    fail(fmt::format("cannot be loaded as a shared library: {}", err ? err : "dlopen failed"));
  }
  dlerror();
  auto entry = reinterpret_cast<nvfp4bench_get_plugin_fn>(dlsym(lib, NVFP4BENCH_PLUGIN_ENTRY));
  if (!entry)
    fail(fmt::format("does not export the entry point {}() of nvfp4bench_plugin.h (declare it extern \"C\")",
                     NVFP4BENCH_PLUGIN_ENTRY));
  const nvfp4bench_plugin* table = entry();
  if (!table) fail(fmt::format("{}() returned NULL", NVFP4BENCH_PLUGIN_ENTRY));
  if (table->abi_version != NVFP4BENCH_PLUGIN_ABI_VERSION)
    fail(fmt::format("plugin ABI version {}, this nvfp4bench loads version {} only (rebuild the plugin against "
                     "its nvfp4bench_plugin.h)",
                     table->abi_version, NVFP4BENCH_PLUGIN_ABI_VERSION));
  if (!valid_name(table->name)) fail("plugin name must be non-empty and only a-z, 0-9, '_', '.', '-'");
  if (table->variant_count <= 0 || !table->variants) fail("declares no variants");
  for (int32_t i = 0; i < table->variant_count; ++i) {
    const nvfp4bench_variant& v = table->variants[i];
    const std::string where = fmt::format("variant [{}]", i);
    if (!valid_name(v.name)) fail(where + ": name must be non-empty and only a-z, 0-9, '_', '.', '-'");
    if (v.problem < NVFP4BENCH_GEMV || v.problem > NVFP4BENCH_GROUP_GEMM)
      fail(fmt::format("variant '{}': unknown problem {}", v.name, int(v.problem)));
    if (!v.summary) fail(fmt::format("variant '{}': summary is NULL", v.name));
    if (!v.prepare || !v.run || !v.destroy) fail(fmt::format("variant '{}': prepare, run and destroy are required", v.name));
    for (int32_t j = 0; j < i; ++j)
      if (table->variants[j].problem == v.problem && std::string_view(table->variants[j].name) == v.name)
        fail(fmt::format("name clash: variant '{}' of {} appears twice", v.name, to_string(to_problem(v.problem))));
  }
  return table;
}

}  // namespace

PluginCaseView to_plugin_view(const CaseView& c) {
  PluginCaseView v;
  v.problem = c.problem == Problem::gemv ? NVFP4BENCH_GEMV
              : c.problem == Problem::dual_gemm ? NVFP4BENCH_DUAL_GEMM
              : c.problem == Problem::group_gemm ? NVFP4BENCH_GROUP_GEMM
                                                 : NVFP4BENCH_GEMM;
  for (const GemmOperands& op : c.groups) {
    nvfp4bench_group g{};
    g.dims = {op.dims.m, op.dims.n, op.dims.k, op.dims.l};
    g.a = to_operand(op.a);
    g.b = to_operand(op.b);
    g.b2 = to_operand(op.b2);
    g.c = op.c;
    g.c_stride_row = op.dims.n;
    g.c_stride_l = op.dims.m * op.dims.n;
    v.groups.push_back(g);
  }
  return v;
}

LoadedPlugins load_plugins(const std::vector<std::string>& paths) {
  LoadedPlugins out;
  for (const std::string& path : paths) {
    std::string abs;
    const nvfp4bench_plugin* table = open_plugin(path, abs);
    for (const PluginRecord& r : out.records)
      if (r.name == table->name)
        throw UsageError(fmt::format("--plugin '{}': name clash: plugin name '{}' is already used by '{}'", path,
                                     table->name, r.path));
    PluginRecord rec{table->name, abs, table->abi_version, {}};
    for (int32_t i = 0; i < table->variant_count; ++i) {
      const nvfp4bench_variant& c = table->variants[i];
      PluginVariant& v = storage().emplace_back();
      v.c = &c;
      v.full_name = fmt::format("{}:{}", table->name, c.name);
      v.summary = one_line(c.summary);
      v.timing_note = c.timing_note ? one_line(c.timing_note) : "";
      v.info = bind_variant(v, to_problem(c.problem), v.full_name, v.summary, v.timing_note,
                            fmt::format("--plugin '{}'", path));
      out.variants.push_back(&v.info);
      rec.variants.push_back(fmt::format("{}/{}", to_string(v.info.problem), v.full_name));
    }
    out.records.push_back(std::move(rec));
  }
  return out;
}

void check_plugin_variant_names(const std::vector<std::string>& requested,
                                const std::vector<const VariantInfo*>& loaded) {
  for (const std::string& name : requested) {
    if (name.find(':') == std::string::npos) continue;
    const bool found =
        std::any_of(loaded.begin(), loaded.end(), [&](const VariantInfo* v) { return v->name == name; });
    if (found) continue;
    std::string known;
    for (const VariantInfo* v : loaded)
      if (known.find(std::string(v->name)) == std::string::npos) known += (known.empty() ? "" : ", ") + std::string(v->name);
    throw UsageError(fmt::format("--variant '{}': no loaded plugin or submission has this variant (loaded: {})", name,
                                 known.empty() ? "none" : known));
  }
}

}  // namespace nvfp4
