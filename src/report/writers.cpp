// SPDX-License-Identifier: Apache-2.0
// writers.cpp: the report files a run writes. The JSON comes first; every other format is made
// from the JSON text alone (read back by json_reader.cpp), exactly as `nvfp4bench render` makes
// it later from the file, so the two agree byte for byte.
#include "data/npy.hpp"
#include "report/report.hpp"
#include "report/report_read.hpp"

namespace nvfp4 {

void write_reports(const RunInfo& info, const std::vector<CaseResult>& results) {
  const OutputPaths& o = info.plan.outputs;
  const std::string text = json_report_text(info, results);
  if (!o.json.empty()) write_file_atomic(o.json, [&](std::ostream& out) { out << text; });
  if (o.csv.empty() && o.markdown.empty() && o.html.empty()) return;
  write_formats(parse_json_report(text, o.json.empty() ? "(report)" : o.json), o);
}

}  // namespace nvfp4
