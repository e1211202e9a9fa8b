// SPDX-License-Identifier: Apache-2.0
// results.cpp: names of the result enums; the % of the measured ceiling.
#include "run/results.hpp"

namespace nvfp4 {

std::string_view to_string(Status s) {
  switch (s) {
    case Status::pass: return "PASS";
    case Status::fail: return "FAIL";
    case Status::skip: return "SKIP";
    case Status::error: return "ERROR";
  }
  return "?";
}

std::optional<double> pct_of_ceiling(Problem p, const std::optional<double>& tflops,
                                     const std::optional<Calibration>& calibration) {
  if (p == Problem::gemv || !tflops || !calibration || !calibration->decode_wgmma_tflops) return std::nullopt;
  if (*calibration->decode_wgmma_tflops <= 0) return std::nullopt;
  return 100.0 * *tflops / *calibration->decode_wgmma_tflops;
}

}  // namespace nvfp4
