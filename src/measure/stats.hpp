// SPDX-License-Identifier: Apache-2.0
// stats.hpp: summary statistics of timing samples (microseconds).
#pragma once

#include <vector>

namespace nvfp4 {

struct SampleStats {
  int n = 0;
  double mean = 0, median = 0, min = 0, max = 0;
  double stddev = 0;  // sample standard deviation (n - 1), 0 for n < 2
  double rse = 0;     // relative standard error of the mean: stddev / sqrt(n) / mean
  double p10 = 0, p90 = 0;
  double noise = 0;   // relative standard deviation: stddev / mean
};

SampleStats summarize(std::vector<double> samples);
// Linear-interpolated percentile (q in [0, 1]) of sorted data.
double percentile_sorted(const std::vector<double>& sorted, double q);
// Geometric mean of positive values; 0 for an empty list.
double geomean(const std::vector<double>& v);

}  // namespace nvfp4
