// SPDX-License-Identifier: Apache-2.0
// cells.hpp: the text of one result as every printer shows it. The terminal table, Markdown and
// CSV printers read the same CaseResult through these helpers, so their columns agree.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "run/results.hpp"

namespace nvfp4::report {

std::string one_line(std::string s);  // newlines and tabs to spaces
std::string status_word(Status s);
std::string mismatch_summary(const CheckResult& c);
// The reason column: the recorded reason, plus the mismatch summary for FAIL.
std::string reason_text(const CaseResult& r);
std::string fixed(const std::optional<double>& v, int digits, std::string_view suffix = "");
std::optional<double> median_us(const CaseResult& r);
std::optional<double> noise_pct(const CaseResult& r);
// Terminal: long group shapes are shortened to the first group and a count.
std::string short_shape(const CaseResult& r);

struct Column {
  std::string title;
  bool right;  // numbers are right-aligned
};
// The columns of the terminal and Markdown tables, and one row of them. `with_ceiling` adds
// "%ceiling" after "%SOL": tables show it when some result has one (has_ceiling), so reports
// without a measured ceiling keep their columns.
std::vector<Column> table_columns(bool with_ceiling);
std::vector<std::string> table_row(const CaseResult& r, bool full_shape, bool with_ceiling);
bool has_ceiling(const std::vector<CaseResult>& results);

struct Counts {
  int pass = 0, fail = 0, skip = 0, error = 0;
};
Counts count(const std::vector<CaseResult>& results);

// Seed / dist shared by every case (for the settings block): from the plan's cases in a run, from
// RunInfo::seed / dist in a report read back. And the settings as one line.
std::optional<uint64_t> common_seed(const RunInfo& info);
std::optional<Dist> common_dist(const RunInfo& info);
std::string settings_line(const RunInfo& info);

}  // namespace nvfp4::report
