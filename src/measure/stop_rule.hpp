// SPDX-License-Identifier: Apache-2.0
// stop_rule.hpp: when the sampling of one case ends (host only, so the rule is unit-tested).
//
// gpu-mode's rule (PROBLEMS.md section 4), with outliers (stats.hpp) set aside:
//   "max samples"  max_samples samples that are not outliers, or 2 * max_samples in all;
//   "time budget"  max_time_s of sampling;
//   "rse"          at least min_samples samples and min_time_s, the relative standard error of
//                  the mean of the samples that are not outliers below target_rse, and at least
//                  min_samples + (number of outliers) such samples.
// So when outliers appear, sampling goes on (within max_time_s) until the median rests on as many
// clean samples as it would have without them, plus one per outlier. Without outliers the rule is
// gpu-mode's unchanged.
#pragma once

#include <string>
#include <vector>

#include "measure/timing.hpp"

namespace nvfp4 {

struct StopCheck {
  bool stop = false;
  std::string reason;        // "max samples", "time budget", "rse" when stop
  bool held_by_outliers = false;  // would have stopped, goes on only because of outliers
};

StopCheck check_stop(const std::vector<double>& samples_us, double wall_s, const TimingOptions& opt);

}  // namespace nvfp4
