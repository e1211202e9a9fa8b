// SPDX-License-Identifier: Apache-2.0
#include "measure/stop_rule.hpp"

#include <optional>

#include "measure/stats.hpp"

namespace nvfp4 {

StopCheck check_stop(const std::vector<double>& samples, double wall_s, const TimingOptions& opt) {
  StopCheck out;
  const int n = static_cast<int>(samples.size());
  std::optional<SampleStats> st;
  auto stats = [&]() -> const SampleStats& {
    if (!st) st = summarize(samples);
    return *st;
  };
  if (n >= opt.max_samples) {
    if (n - stats().outliers >= opt.max_samples || n >= 2 * opt.max_samples) return {true, "max samples", false};
    out.held_by_outliers = true;
  }
  if (wall_s >= opt.max_time_s) return {true, "time budget", false};
  if (n >= opt.min_samples && wall_s >= opt.min_time_s) {
    const int outliers = stats().outliers;
    const double rse = outliers == 0 ? stats().rse : summarize(without_outliers(samples)).rse;
    if (rse < opt.target_rse) {
      if (n - outliers >= opt.min_samples + outliers) return {true, "rse", false};
      out.held_by_outliers = true;
    }
  }
  return out;
}

}  // namespace nvfp4
