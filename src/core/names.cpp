// SPDX-License-Identifier: Apache-2.0
// names.cpp: spellings of the core enums shared by parsing, the runner and the reports.
#include "core/case_data.hpp"

namespace nvfp4 {

std::string_view to_string(Dist d) { return d == Dist::gpumode ? "gpumode" : "uniform"; }

bool parse_dist(std::string_view s, Dist& out) {
  if (s == "gpumode") out = Dist::gpumode;
  else if (s == "uniform") out = Dist::uniform;
  else return false;
  return true;
}

}  // namespace nvfp4
