// SPDX-License-Identifier: Apache-2.0
#include "reference/verify.hpp"

#include <cmath>

namespace nvfp4 {

namespace {
// Values at or above 65520 round to infinity in FP16 (65504 + half an ULP of 32).
constexpr double kFp16OverflowThreshold = 65520.0;
}  // namespace

float round_to_half(double x) { return __half2float(__double2half(x)); }

void verify_group(const std::vector<__half>& out, const std::vector<__half>& ref, const Dims& d, int64_t group,
                  const Tolerance& tol, CheckResult& acc, const std::vector<float>* bound) {
  if (bound) acc.with_bound = true;
  const size_t count = static_cast<size_t>(d.l * d.m * d.n);
  const float atol = round_to_half(tol.atol);
  for (size_t i = 0; i < count; ++i) {
    const float got = __half2float(out[i]), want = __half2float(ref[i]);
    bool bad;
    if (std::isnan(got) || std::isnan(want) || std::isinf(got) || std::isinf(want)) {
      // NaN-ness, +inf-ness and -inf-ness must agree; two equal infinities pass.
      bad = std::isnan(got) != std::isnan(want) || ((std::isinf(got) || std::isinf(want)) && got != want);
      // With an accumulation bound, a finite value within `bound` of FP16's overflow threshold may
      // legitimately round to the infinity of the same sign on the other side.
      if (bad && bound && !std::isnan(got) && !std::isnan(want) && std::signbit(got) == std::signbit(want)) {
        const float finite = std::isinf(got) ? want : got;
        bad = std::isinf(finite) || std::fabs(double(finite)) + double((*bound)[i]) < kFp16OverflowThreshold;
      }
    } else {
      // torch: diff = |a - b| and atol + rtol*|b| are each rounded to FP16.
      const float diff = round_to_half(std::fabs(double(got) - double(want)));
      const float allowed = round_to_half(double(atol) + double(round_to_half(tol.rtol * std::fabs(double(want)))));
      bad = diff > double(allowed) + (bound ? double((*bound)[i]) : 0.0);
      const double abs_err = std::fabs(double(got) - double(want));
      if (abs_err > acc.max_abs) acc.max_abs = abs_err;
      if (want != 0 && abs_err / std::fabs(double(want)) > acc.max_rel) acc.max_rel = abs_err / std::fabs(double(want));
    }
    if (bad) {
      if (acc.first.size() < CheckResult::kKeep) {
        const int64_t idx = static_cast<int64_t>(i);
        acc.first.push_back(Mismatch{group, idx / (d.m * d.n), (idx / d.n) % d.m, idx % d.n, got, want});
      }
      ++acc.mismatches;
    }
  }
  acc.checked += static_cast<int64_t>(count);
}

}  // namespace nvfp4
