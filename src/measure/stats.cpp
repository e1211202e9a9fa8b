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
