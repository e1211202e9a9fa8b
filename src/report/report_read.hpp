// SPDX-License-Identifier: Apache-2.0
// report_read.hpp: reads a JSON report written by write_json back (round-trip tests, compare).
#pragma once

#include <string>
#include <vector>

#include "run/results.hpp"

namespace nvfp4 {

// The report's header fields (settings and the device block are not read back).
struct ReportHeader {
  std::string schema;
  std::string tool_name, tool_version, git_sha;
  std::string command_line;
  std::string timestamp;
  std::string device_name;  // "" when the report has no device
};

// Everything the other formats are made from: `nvfp4bench render` and a run's own CSV, Markdown
// and HTML both come from here, so a format rendered later equals the one the run wrote.
struct ReportFile {
  ReportHeader header;
  RunInfo info;       // the header, device, SOL rates and settings (plan.cases and outputs empty)
  std::vector<CaseResult> results;
  std::string json;   // the whole document, compact (the HTML report embeds it)
};

// Throws std::runtime_error naming `path` when the file is missing, is not JSON, has a schema
// other than kReportSchema, or a result lacks a field or has one of the wrong type.
ReportFile read_json_report(const std::string& path);
// The same from the report's text; `path` only names it in errors.
ReportFile parse_json_report(const std::string& text, const std::string& path);
std::vector<CaseResult> read_json_results(const std::string& path);

// The self-contained HTML page of a report (html_writer.cpp): metadata, a sortable and filterable
// results table, per-problem time charts, the roofline and the sample distributions, drawn in the
// browser from the report's JSON. Offline: no network request at all.
void write_html(const std::string& path, const ReportFile& report);
// (The regression view of `compare --html` is write_compare_html in report/compare.hpp.)

// The formats made from a report (CSV, Markdown, HTML), for every path in `outputs` that is set
// (the JSON path is ignored). A run and `nvfp4bench render` both write through this.
void write_formats(const ReportFile& report, const OutputPaths& outputs);

}  // namespace nvfp4
