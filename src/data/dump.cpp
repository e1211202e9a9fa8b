// SPDX-License-Identifier: Apache-2.0
#include "data/dump.hpp"

#include <fmt/format.h>

#include <fstream>

#include "core/nvfp4.hpp"
#include "data/npy.hpp"

namespace nvfp4 {

namespace {

std::string sanitize(std::string s) {
  for (char& ch : s)
    if (ch == ',') ch = '_';
  return s;
}

}  // namespace

CaseDump::CaseDump(const std::string& root, const CaseView& v, Dist dist, uint64_t seed) : m_view(v) {
  m_dir = std::filesystem::path(root) / fmt::format("{}_{}_{}_seed{}", to_string(v.problem),
                                                    sanitize(format_shape(v.problem, v.shape)), to_string(dist), seed);
  std::filesystem::create_directories(m_dir);
  m_index["problem"] = to_string(v.problem);
  m_index["shape"] = format_shape(v.problem, v.shape);
  m_index["dist"] = to_string(dist);
  m_index["seed"] = seed;
  m_index["layout_note"] =
      "fp4 data: uint8 [l][rows][k/2], low nibble = lower k; scales: e4m3fn bytes, row-major [l][rows][k/16] "
      "and blocked [l][bytes] (PROBLEMS.md 1.3); outputs: float16 [l][m][n]";
  for (size_t g = 0; g < v.groups.size(); ++g) {
    const GemmOperands& op = v.groups[g];
    const std::string pre = v.groups.size() > 1 ? fmt::format("g{}_", g) : "";
    write_operand(pre, "a", op.a);
    write_operand(pre, "b", op.b);
    if (v.problem == Problem::dual_gemm) write_operand(pre, "b2", op.b2);
  }
}

void CaseDump::write_output(const std::string& name, const std::vector<std::vector<__half>>& per_group) {
  for (size_t g = 0; g < per_group.size(); ++g) {
    const Dims& d = m_view.groups[g].dims;
    const std::string pre = per_group.size() > 1 ? fmt::format("g{}_", g) : "";
    add(pre + name, "<f2", {d.l, d.m, d.n}, per_group[g].data(), per_group[g].size() * sizeof(__half));
  }
}

void CaseDump::finish() {
  const auto path = (m_dir / "index.json").string();
  std::ofstream f(path + ".tmp");
  f << m_index.dump(2) << '\n';
  f.close();
  if (!f) throw std::runtime_error(fmt::format("--dump: cannot write {}", path));
  std::filesystem::rename(path + ".tmp", path);
}

// Arrays <pre><name>, <pre>sf<name>, <pre>sf<name>_blocked (pre = "g<i>_" for group_gemm).
void CaseDump::write_operand(const std::string& pre, const std::string& name, const Fp4Matrix& m) {
  const HostFp4Matrix h = to_host(m);
  add(pre + name, "|u1", {m.l, m.rows, m.k / 2}, h.data.data(), h.data.size());
  add(pre + "sf" + name, "|u1", {m.l, m.rows, m.k / kSfVec}, h.sf.data(), h.sf.size());
  add(pre + "sf" + name + "_blocked", "|u1", {m.l, static_cast<int64_t>(h.sf_blocked.size()) / m.l},
      h.sf_blocked.data(), h.sf_blocked.size());
}

void CaseDump::add(const std::string& name, std::string_view dtype, std::vector<int64_t> shape, const void* data,
                   size_t bytes) {
  const std::string file = name + ".npy";
  write_npy((m_dir / file).string(), dtype, shape, data, bytes);
  m_index["arrays"][name] = {{"file", file}, {"dtype", dtype}, {"shape", shape}};
}

}  // namespace nvfp4
