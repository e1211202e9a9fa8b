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

struct ReportFile {
  ReportHeader header;
  std::vector<CaseResult> results;
};

// Throws std::runtime_error naming `path` when the file is missing, is not JSON, has a schema
// other than kReportSchema, or a result lacks a field or has one of the wrong type.
ReportFile read_json_report(const std::string& path);
std::vector<CaseResult> read_json_results(const std::string& path);

}  // namespace nvfp4
