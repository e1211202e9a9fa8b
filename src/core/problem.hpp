// SPDX-License-Identifier: Apache-2.0
// problem.hpp: the four problems, their shapes, shape rules and work counts (host only).
//
// Shape strings (command line and configs):
//   gemv        MxKxL            (N is 1; B is stored with 128 rows as in gpu-mode, row 0 is the vector)
//   gemm        MxNxK[xL]        (L defaults to 1)
//   dual_gemm   MxNxK[xL]        C = silu(A*B1^T) (.) (A*B2^T)
//   group_gemm  MxNxK,MxNxK,...  one MxNxK per group, L = 1
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace nvfp4 {

enum class Problem { gemv, gemm, dual_gemm, group_gemm };

inline constexpr Problem kAllProblems[] = {Problem::gemv, Problem::gemm, Problem::dual_gemm,
                                           Problem::group_gemm};

std::string_view to_string(Problem p);
std::optional<Problem> parse_problem(std::string_view s);

// One GEMM (one group). gemv: n == 1.
struct Dims {
  int64_t m = 0, n = 0, k = 0, l = 1;
};
// Hand-written, not defaulted: nvcc's front end rejects copying aggregates with a defaulted
// operator== inside std::vector under C++20 (std::construct_at).
inline bool operator==(const Dims& x, const Dims& y) { return x.m == y.m && x.n == y.n && x.k == y.k && x.l == y.l; }

struct Shape {
  std::vector<Dims> groups;  // exactly one entry except for group_gemm
};
inline bool operator==(const Shape& x, const Shape& y) { return x.groups == y.groups; }

// Rows of the B operand as stored: gemv pads B (and SFB) to 128 rows like gpu-mode.
inline constexpr int64_t kGemvBRows = 128;
int64_t b_rows(Problem p, const Dims& d);

// Thrown for malformed shape text or a shape that breaks a problem's rule; what() is one line.
struct ShapeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

Shape parse_shape(Problem p, std::string_view text);    // throws ShapeError
std::string format_shape(Problem p, const Shape& s);     // inverse of parse_shape
// Empty when the shape obeys the problem's rules, else the rule it breaks.
std::string shape_rule_violation(Problem p, const Shape& s);

// Work counts. flops = 2*M*N*K*L per GEMM (dual: two GEMMs). bytes = what a kernel must move:
// A, B (B1 and B2), both row-major scale tensors, C as FP16. gemv counts B as the one vector row.
double flop_count(Problem p, const Shape& s);
double byte_count(Problem p, const Shape& s);
// Device bytes the harness allocates for one input set of this case (inputs + output).
int64_t device_bytes(Problem p, const Shape& s);

}  // namespace nvfp4
