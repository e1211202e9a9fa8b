// SPDX-License-Identifier: Apache-2.0
#include "core/problem.hpp"

#include <charconv>
#include <fmt/format.h>

#include "core/nvfp4.hpp"

namespace nvfp4 {

std::string_view to_string(Problem p) {
  switch (p) {
    case Problem::gemv: return "gemv";
    case Problem::gemm: return "gemm";
    case Problem::dual_gemm: return "dual_gemm";
    case Problem::group_gemm: return "group_gemm";
  }
  return "?";
}

std::optional<Problem> parse_problem(std::string_view s) {
  for (Problem p : kAllProblems)
    if (to_string(p) == s) return p;
  return std::nullopt;
}

int64_t b_rows(Problem p, const Dims& d) { return p == Problem::gemv ? kGemvBRows : d.n; }

namespace {

std::vector<int64_t> parse_dims_text(std::string_view text, std::string_view whole) {
  std::vector<int64_t> out;
  size_t pos = 0;
  while (true) {
    const size_t x = text.find('x', pos);
    const std::string_view tok = text.substr(pos, x == std::string_view::npos ? text.size() - pos : x - pos);
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
    if (tok.empty() || ec != std::errc() || end != tok.data() + tok.size())
      throw ShapeError(fmt::format("shape '{}': '{}' is not a whole number", whole, tok));
    if (v <= 0) throw ShapeError(fmt::format("shape '{}': every dimension must be positive, got {}", whole, v));
    out.push_back(v);
    if (x == std::string_view::npos) break;
    pos = x + 1;
  }
  return out;
}

}  // namespace

Shape parse_shape(Problem p, std::string_view text) {
  Shape s;
  if (text.empty()) throw ShapeError("shape is empty");
  if (p == Problem::group_gemm) {
    size_t pos = 0;
    while (true) {
      const size_t comma = text.find(',', pos);
      const auto part = text.substr(pos, comma == std::string_view::npos ? text.size() - pos : comma - pos);
      const auto v = parse_dims_text(part, text);
      if (v.size() != 3)
        throw ShapeError(fmt::format("group_gemm shape '{}': each group is MxNxK, got '{}'", text, part));
      s.groups.push_back(Dims{v[0], v[1], v[2], 1});
      if (comma == std::string_view::npos) break;
      pos = comma + 1;
    }
  } else {
    const auto v = parse_dims_text(text, text);
    if (p == Problem::gemv) {
      if (v.size() != 3) throw ShapeError(fmt::format("gemv shape '{}': expected MxKxL", text));
      s.groups.push_back(Dims{v[0], 1, v[1], v[2]});
    } else {
      if (v.size() != 3 && v.size() != 4)
        throw ShapeError(fmt::format("{} shape '{}': expected MxNxK or MxNxKxL", to_string(p), text));
      s.groups.push_back(Dims{v[0], v[1], v[2], v.size() == 4 ? v[3] : 1});
    }
  }
  if (auto why = shape_rule_violation(p, s); !why.empty())
    throw ShapeError(fmt::format("{} shape '{}': {}", to_string(p), text, why));
  return s;
}

std::string format_shape(Problem p, const Shape& s) {
  std::string out;
  for (const Dims& d : s.groups) {
    if (!out.empty()) out += ',';
    if (p == Problem::gemv) out += fmt::format("{}x{}x{}", d.m, d.k, d.l);
    else if (p == Problem::group_gemm || d.l == 1) out += fmt::format("{}x{}x{}", d.m, d.n, d.k);
    else out += fmt::format("{}x{}x{}x{}", d.m, d.n, d.k, d.l);
  }
  return out;
}

std::string shape_rule_violation(Problem p, const Shape& s) {
  if (s.groups.empty()) return "no groups";
  if (p != Problem::group_gemm && s.groups.size() != 1) return "exactly one MxNxK expected";
  constexpr int64_t kMaxDim = int64_t{1} << 20;  // keeps every index product in int64 and offsets in range
  for (const Dims& d : s.groups) {
    if (d.m <= 0 || d.n <= 0 || d.k <= 0 || d.l <= 0) return "every dimension must be positive";
    if (d.m > kMaxDim || d.n > kMaxDim || d.k > kMaxDim) return fmt::format("dimensions are limited to {}", kMaxDim);
    if (d.l > 64) return "L is limited to 64";
    // gpu-mode rules (PROBLEMS.md 2.x): gemv K % 64, the GEMM family K % 256. M and N are free:
    // the blocked scale layout pads rows to 128.
    const int64_t k_mult = p == Problem::gemv ? 64 : 256;
    if (d.k % k_mult != 0) return fmt::format("K must be a multiple of {} (got {})", k_mult, d.k);
    if (p == Problem::gemv && d.n != 1) return "gemv has N = 1";
    if (p == Problem::group_gemm && d.l != 1) return "group_gemm has L = 1";
  }
  if (p == Problem::group_gemm && s.groups.size() > 1024) return "at most 1024 groups";
  return {};
}

double flop_count(Problem p, const Shape& s) {
  double f = 0;
  for (const Dims& d : s.groups) f += 2.0 * double(d.m) * double(d.n) * double(d.k) * double(d.l);
  return p == Problem::dual_gemm ? 2 * f : f;
}

double byte_count(Problem p, const Shape& s) {
  double bytes = 0;
  const double nb = p == Problem::dual_gemm ? 2 : 1;
  for (const Dims& d : s.groups) {
    const double per_row = double(d.k) / 2 + double(d.k) / kSfVec;  // fp4 data + e4m3 scales
    bytes += double(d.l) * (double(d.m) * per_row + nb * double(d.n) * per_row + 2.0 * double(d.m) * double(d.n));
  }
  return bytes;
}

int64_t device_bytes(Problem p, const Shape& s) {
  int64_t total = 0;
  const int64_t nb = p == Problem::dual_gemm ? 2 : 1;
  for (const Dims& d : s.groups) {
    auto operand = [&](int64_t rows) {
      const SfGeometry g{rows, d.k / kSfVec, d.l};
      return rows * d.k / 2 * d.l + g.rowmajor_bytes() + g.blocked_bytes() + 3 * 256;
    };
    total += operand(d.m) + nb * operand(b_rows(p, d)) + 2 * d.m * d.n * d.l + 256;
  }
  return total;
}

}  // namespace nvfp4
