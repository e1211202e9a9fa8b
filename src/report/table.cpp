// SPDX-License-Identifier: Apache-2.0
// table.cpp: the terminal table printed after a run.
#include <fmt/format.h>

#include <algorithm>

#include "report/cells.hpp"
#include "report/report.hpp"

namespace nvfp4 {

using namespace report;

void print_table(std::ostream& os, const std::vector<CaseResult>& results) {
  const bool ceiling = has_ceiling(results);
  const std::vector<Column> cols = table_columns(ceiling);
  std::vector<std::vector<std::string>> rows;
  rows.reserve(results.size());
  for (const CaseResult& r : results) rows.push_back(table_row(r, false, ceiling));
  std::vector<size_t> width(cols.size());
  for (size_t c = 0; c < cols.size(); ++c) {
    width[c] = cols[c].title.size();
    for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
  }
  auto emit = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t c = 0; c < cols.size(); ++c) {
      if (c) line += "  ";
      if (c + 1 == cols.size()) line += cells[c];  // last column: no padding
      else if (cols[c].right) line += fmt::format("{:>{}}", cells[c], width[c]);
      else line += fmt::format("{:<{}}", cells[c], width[c]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    os << line << '\n';
  };
  std::vector<std::string> titles;
  for (const Column& c : cols) titles.push_back(c.title);
  emit(titles);
  for (const auto& row : rows) emit(row);
  const Counts n = count(results);
  os << fmt::format("{} PASS, {} FAIL, {} SKIP, {} ERROR\n", n.pass, n.fail, n.skip, n.error);
}

}  // namespace nvfp4
