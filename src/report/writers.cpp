// SPDX-License-Identifier: Apache-2.0
// writers.cpp: the list of report files a run writes, one line per format.
#include "report/report.hpp"

namespace nvfp4 {

void write_reports(const RunInfo& info, const std::vector<CaseResult>& results) {
  const OutputPaths& o = info.plan.outputs;
  if (!o.json.empty()) write_json(o.json, info, results);
  if (!o.csv.empty()) write_csv(o.csv, info, results);
  if (!o.markdown.empty()) write_markdown(o.markdown, info, results);
}

}  // namespace nvfp4
