// SPDX-License-Identifier: Apache-2.0
#include "measure/stats.hpp"

#include <algorithm>
#include <cmath>

namespace nvfp4 {

double percentile_sorted(const std::vector<double>& s, double q) {
  if (s.empty()) return 0;
  const double pos = q * double(s.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, s.size() - 1);
  return s[lo] + (pos - double(lo)) * (s[hi] - s[lo]);
}

namespace {

// Median and outlier limit of sorted samples: |x - median| > limit is an outlier.
struct Robust {
  double median = 0, sigma = 0, limit = 0;
};
Robust robust_of_sorted(const std::vector<double>& sorted) {
  Robust r;
  if (sorted.empty()) return r;
  r.median = percentile_sorted(sorted, 0.5);
  std::vector<double> dev;
  dev.reserve(sorted.size());
  for (double x : sorted) dev.push_back(std::abs(x - r.median));
  std::sort(dev.begin(), dev.end());
  r.sigma = kMadToSigma * percentile_sorted(dev, 0.5);
  r.limit = std::max(kOutlierSigmas * r.sigma, kOutlierMinRel * std::abs(r.median));
  return r;
}

}  // namespace

std::vector<double> without_outliers(const std::vector<double>& samples) {
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const Robust r = robust_of_sorted(sorted);
  std::vector<double> out;
  out.reserve(samples.size());
  for (double x : samples)
    if (!(std::abs(x - r.median) > r.limit)) out.push_back(x);
  return out;
}

SampleStats summarize(std::vector<double> v) {
  SampleStats st;
  st.n = static_cast<int>(v.size());
  if (v.empty()) return st;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  st.mean = sum / double(v.size());
  st.min = v.front();
  st.max = v.back();
  st.median = percentile_sorted(v, 0.5);
  st.p10 = percentile_sorted(v, 0.1);
  st.p90 = percentile_sorted(v, 0.9);
  if (v.size() > 1) {
    double ss = 0;
    for (double x : v) ss += (x - st.mean) * (x - st.mean);
    st.stddev = std::sqrt(ss / double(v.size() - 1));
    st.rse = st.mean > 0 ? st.stddev / std::sqrt(double(v.size())) / st.mean : 0;
    st.noise = st.mean > 0 ? st.stddev / st.mean : 0;
    const Robust r = robust_of_sorted(v);
    st.robust_noise = r.median > 0 ? r.sigma / r.median : 0;
    for (double x : v) st.outliers += std::abs(x - r.median) > r.limit ? 1 : 0;
  }
  return st;
}

double geomean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += std::log(x);
  return std::exp(s / double(v.size()));
}

}  // namespace nvfp4
