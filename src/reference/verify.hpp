// SPDX-License-Identifier: Apache-2.0
// verify.hpp: gpu-mode's check (problems/nvidia/utils.py verbose_allclose), element by element:
// an element fails when |out - ref| > atol + rtol*|ref| (evaluated in FP16 arithmetic, as torch
// does for two FP16 tensors) or when NaN / +Inf / -Inf status differs. One failure fails the case.
//
// With a per-element accumulation bound (the `uniform` distribution; ReferenceOutput::bounds) the
// allowed difference is atol + rtol*|ref| + bound: wide-range scales make FP32 sums depend on
// their order, so two correct kernels can differ by more than 1e-3 where a sum cancels. The
// gpu-mode distributions keep the plain rule (their sums are exact or nearly so).
#pragma once

#include <cuda_fp16.h>

#include <cstdint>
#include <vector>

#include "core/problem.hpp"

namespace nvfp4 {

struct Tolerance {
  double rtol = 1e-3;
  double atol = 1e-3;
};

struct Mismatch {
  int64_t group = 0, l = 0, m = 0, n = 0;
  float got = 0, want = 0;
};

struct CheckResult {
  int64_t checked = 0;
  int64_t mismatches = 0;
  double max_abs = 0;  // over finite pairs
  double max_rel = 0;  // |out-ref| / |ref| over finite pairs with ref != 0
  std::vector<Mismatch> first;  // at most kKeep, in index order
  bool with_bound = false;       // the accumulation bound was part of the rule
  static constexpr size_t kKeep = 5;
  bool passed() const { return checked > 0 && mismatches == 0; }
};

// Adds the comparison of one group's output ([l][m][n] FP16) to `acc`.
// `bound`: null, or one extra allowed absolute difference per element.
void verify_group(const std::vector<__half>& out, const std::vector<__half>& ref, const Dims& d, int64_t group,
                  const Tolerance& tol, CheckResult& acc, const std::vector<float>* bound = nullptr);

// FP16 round-to-nearest-even of a double (host), used by references and the check.
float round_to_half(double x);

}  // namespace nvfp4
