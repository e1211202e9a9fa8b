// SPDX-License-Identifier: Apache-2.0
// stats.hpp: summary statistics of timing samples (microseconds).
//
// Robust spread: sigma_robust = 1.4826 * MAD, the median absolute deviation from the median scaled
// to a standard deviation (equal to it for normal samples; one stray sample barely moves it).
// robust_noise = sigma_robust / median. An outlier is a sample further from the median than
// kOutlierSigmas robust standard deviations and than kOutlierMinRel of the median (the second
// part keeps samples that differ by a timer tick from counting when most samples are equal).
#pragma once

#include <string_view>
#include <vector>

namespace nvfp4 {

inline constexpr double kMadToSigma = 1.4826;
inline constexpr double kOutlierSigmas = 5.0;
inline constexpr double kOutlierMinRel = 0.01;
inline constexpr std::string_view kOutlierRule =
    "a sample is an outlier when |x - median| > max(5 * 1.4826 * MAD, 1% of the median)";

struct SampleStats {
  int n = 0;
  double mean = 0, median = 0, min = 0, max = 0;
  double stddev = 0;  // sample standard deviation (n - 1), 0 for n < 2
  double rse = 0;     // relative standard error of the mean: stddev / sqrt(n) / mean
  double p10 = 0, p90 = 0;
  double noise = 0;   // relative standard deviation: stddev / mean
  double robust_noise = 0;  // 1.4826 * MAD / median (the noise compare uses)
  int outliers = 0;         // samples beyond the outlier rule above
};

SampleStats summarize(std::vector<double> samples);
// The samples that are not outliers (by the rule above), in their order.
std::vector<double> without_outliers(const std::vector<double>& samples);
// Linear-interpolated percentile (q in [0, 1]) of sorted data.
double percentile_sorted(const std::vector<double>& sorted, double q);
// Geometric mean of positive values; 0 for an empty list.
double geomean(const std::vector<double>& v);

}  // namespace nvfp4
