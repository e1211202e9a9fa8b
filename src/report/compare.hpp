// SPDX-License-Identifier: Apache-2.0
// compare.hpp: `nvfp4bench compare BASE NEW`: two JSON reports (schema nvfp4bench.report/1) in,
// one verdict per case out (host only; the idea of nvbench's compare scripts).
//
// Cases are matched by (problem, shape, variant, dist). For a case timed in both reports:
//   ratio = new median / base median, change = ratio - 1
//   noise_tol = kNoiseK * sqrt(noise_base^2 + noise_new^2)
//   cap = kToleranceCap * threshold_pct / 100
//   tolerance = max(threshold_pct / 100, min(noise_tol, cap))
//   |change| > tolerance           -> FASTER (change < 0) or SLOWER (change > 0)
//   else noise_tol > cap           -> NOISY: too noisy to call SAME
//   else                           -> SAME
// noise is each result's ROBUST relative spread: timing.robust_noise (1.4826 * MAD / median,
// measure/stats.hpp). For reports written before that field: the same figure from samples_us
// when the report kept the samples, else (p90 - p10) / 2.5631 / median, else timing.noise
// (stddev / mean), else timing.rse. So one stray sample cannot widen a tolerance, and no amount of
// noise widens it beyond the cap: a change larger than the cap is always FASTER or SLOWER.
//
// Verdicts without a ratio:
//   FAILED   the new status is FAIL or ERROR, or the case passed in BASE and does not in NEW
//   NEW      only in NEW (or not timed in BASE but timed now)
//   MISSING  only in BASE (or timed in BASE but not now, without failing): not a regression
//
// Exit codes: 4 at least one SLOWER or FAILED; else 5 at least one NOISY (0 with allow_noisy);
// else 0. 2: an unreadable or malformed report, a schema mismatch, or a Markdown file that
// cannot be written.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace nvfp4 {

// Multiplier on the combined relative noise of the two runs (two standard deviations).
inline constexpr double kNoiseK = 2.0;
// Noise never widens a tolerance beyond this multiple of the threshold.
inline constexpr double kToleranceCap = 3.0;
inline constexpr int kExitNoisy = 5;

enum class Verdict { same, faster, slower, added, missing, failed, noisy };
// "SAME", "FASTER", "SLOWER", "NEW", "MISSING", "FAILED", "NOISY"
std::string_view to_string(Verdict v);

// One row of the comparison.
struct CompareRow {
  std::string problem, shape, variant, dist;
  std::string base_status, new_status;   // "" where the case is absent from that report
  std::optional<double> base_median_us, new_median_us;
  std::optional<double> ratio;           // new / base, both timed
  double base_noise = 0, new_noise = 0;  // relative (fractions)
  double tolerance = 0;                  // relative tolerance the change was held to
  double noise_tolerance = 0;            // what the noise alone asked for (before the cap)
  Verdict verdict = Verdict::same;
  std::string note;                      // why, for verdicts other than SAME / FASTER / SLOWER
};

// What `compare --html` shows (report/html_writer.cpp).
struct CompareView {
  std::string base_path, new_path;
  double threshold_pct = 0;
  std::string summary;                   // the summary line the terminal shows
  std::string outcome;                   // "REGRESSION", "NOISY" or "OK"
  std::vector<CompareRow> rows;          // base order, then the cases only NEW has
};
void write_compare_html(const std::string& path, const CompareView& view);

/** Verdict for one case timed in both reports (the rule above): SAME, FASTER, SLOWER or NOISY.
 *  Noise in fractions, threshold in percent. */
Verdict classify_change(double ratio, double threshold_pct, double base_noise, double new_noise,
                        double* tolerance_out = nullptr, double* noise_tolerance_out = nullptr);

/**
 * Compares two report files and prints an aligned table and a summary line to `out`; writes the
 * same table as Markdown to `markdown_path` and the regression view (ratios chart, table) as
 * HTML to `html_path` unless they are empty (temporary file + rename).
 * Errors go to stderr as one line. Returns 0, 4, 5 or 2 (see above).
 */
int run_compare(const std::string& base_path, const std::string& new_path, double threshold_pct,
                const std::string& markdown_path, std::ostream& out, bool allow_noisy = false,
                const std::string& html_path = "");

}  // namespace nvfp4
