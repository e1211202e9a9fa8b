// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdlib>
#include <string>
#include <vector>

#include "cli/plan.hpp"

namespace nvfp4::test {

// Cases of a committed config (test and benchmark roles as asked).
// The source tree: $NVFP4_SOURCE_DIR when set (a build carried to another machine), else the
// configure-time path.
inline std::string source_dir() {
  const char* env = std::getenv("NVFP4_SOURCE_DIR");
  return env && *env ? env : NVFP4_SOURCE_DIR;
}

inline std::vector<CaseSpec> config_cases(const std::string& rel_path, const std::string& role = "all") {
  const std::string path = source_dir() + "/" + rel_path;
  const char* argv[] = {"nvfp4bench", "--config", path.c_str(), "--role", role.c_str(), "--verify-only"};
  return parse_command_line(6, argv)->cases;
}

// A verify-only plan (no timing, no floor, quiet) over the cases of problem `p` in `from`, each
// with both distributions.
inline RunPlan verify_plan(Problem p, const std::vector<CaseSpec>& from) {
  RunPlan plan;
  plan.timing_enabled = false;
  plan.floor_enabled = false;
  plan.quiet = true;
  for (const CaseSpec& c : from)
    if (c.problem == p)
      for (Dist dist : {Dist::gpumode, Dist::uniform}) {
        CaseSpec d = c;
        d.dist = dist;
        plan.cases.push_back(d);
      }
  return plan;
}

}  // namespace nvfp4::test
