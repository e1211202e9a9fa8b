// SPDX-License-Identifier: Apache-2.0
// compare.hpp: `nvfp4bench compare BASE NEW`: two JSON reports (schema nvfp4bench.report/1) in,
// one verdict per case out (host only; the idea of nvbench's compare scripts).
//
// Cases are matched by (problem, shape, variant, dist). For a case timed in both reports:
//   ratio = new median / base median, change = ratio - 1
//   tolerance = max(threshold_pct / 100, kNoiseK * sqrt(noise_base^2 + noise_new^2))
//   |change| <= tolerance -> SAME, else FASTER (change < 0) or SLOWER (change > 0).
// noise is each result's relative standard deviation of the samples (timing.noise, stddev/mean;
// timing.rse when noise is absent). That is deliberately wider than the uncertainty of the
// median: a case is only called SLOWER or FASTER when the shift is larger than the run-to-run
// spread of both runs together, so noisy cases do not raise false alarms.
//
// Verdicts without a ratio:
//   FAILED   the new status is FAIL or ERROR, or the case passed in BASE and does not in NEW
//   NEW      only in NEW (or not timed in BASE but timed now)
//   MISSING  only in BASE (or timed in BASE but not now, without failing): not a regression
//
// Exit codes: 0 nothing SLOWER or FAILED, 4 at least one SLOWER or FAILED, 2 an unreadable or
// malformed report, a schema mismatch, or a Markdown file that cannot be written.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace nvfp4 {

// Multiplier on the combined relative noise of the two runs (two standard deviations).
inline constexpr double kNoiseK = 2.0;

enum class Verdict { same, faster, slower, added, missing, failed };
std::string_view to_string(Verdict v);  // "SAME", "FASTER", "SLOWER", "NEW", "MISSING", "FAILED"

// One row of the comparison.
struct CompareRow {
  std::string problem, shape, variant, dist;
  std::string base_status, new_status;   // "" where the case is absent from that report
  std::optional<double> base_median_us, new_median_us;
  std::optional<double> ratio;           // new / base, both timed
  double base_noise = 0, new_noise = 0;  // relative (fractions)
  double tolerance = 0;                  // relative tolerance the change was held to
  Verdict verdict = Verdict::same;
};

/** Verdict for one case timed in both reports (the rule above). Fractions, not percent. */
Verdict classify_change(double ratio, double threshold_pct, double base_noise, double new_noise,
                        double* tolerance_out = nullptr);

/**
 * Compares two report files and prints an aligned table and a summary line to `out`; writes the
 * same table as Markdown to `markdown_path` unless it is empty (temporary file + rename).
 * Errors go to stderr as one line. Returns 0, 4 or 2 (see above).
 */
int run_compare(const std::string& base_path, const std::string& new_path, double threshold_pct,
                const std::string& markdown_path, std::ostream& out);

}  // namespace nvfp4
