// SPDX-License-Identifier: Apache-2.0
// markdown_writer.cpp: the Markdown report: a table headed by the GPU, settings and command.
#include <fmt/format.h>

#include "data/npy.hpp"
#include "report/cells.hpp"
#include "report/report.hpp"

namespace nvfp4 {
namespace {

using namespace report;

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : one_line(s)) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

void write_markdown(const std::string& path, const RunInfo& info, const std::vector<CaseResult>& results) {
  std::string text;
  const std::string gpu = info.device ? info.device->name : std::string("no GPU");
  text += fmt::format("# nvfp4bench results: {}\n\n", md_cell(gpu));
  std::string meta = fmt::format("nvfp4bench {}", info.tool_version.empty() ? "?" : info.tool_version);
  if (!info.git_sha.empty()) meta += fmt::format(" ({})", info.git_sha);
  if (info.device)
    meta += fmt::format(", sm_{}{}, {} SMs", info.device->cc_major, info.device->cc_minor, info.device->sms);
  if (!info.timestamp.empty()) meta += fmt::format(", {}", info.timestamp);
  text += meta + "\n\n";
  text += fmt::format("Settings: {}\n\n", settings_line(info));
  if (!info.command_line.empty()) text += fmt::format("Command: `{}`\n\n", info.command_line);
  for (const PluginRecord& p : info.plugins)
    text += fmt::format("Plugin `{}`: `{}` (ABI version {})\n\n", p.name, p.path, p.abi_version);
  for (const SubmissionRecord& s : info.submissions)
    text += fmt::format("Submission `{}`: `{}` (Python {}{})\n\n", s.name, s.path, s.python.empty() ? "none" : s.python,
                        s.skip.empty() ? ", torch " + s.torch : "; SKIP: " + s.skip);

  const bool ceiling = has_ceiling(results);
  const std::vector<Column> cols = table_columns(ceiling);
  std::string header = "|", rule = "|";
  for (const Column& c : cols) {
    header += " " + c.title + " |";
    rule += c.right ? " ---: |" : " --- |";
  }
  text += header + "\n" + rule + "\n";
  for (const CaseResult& r : results) {
    std::string line = "|";
    for (const std::string& cell : table_row(r, true, ceiling)) line += fmt::format(" {} |", md_cell(cell));
    text += line + "\n";
  }
  const Counts n = count(results);
  text += fmt::format("\n{} PASS, {} FAIL, {} SKIP, {} ERROR\n", n.pass, n.fail, n.skip, n.error);
  write_file_atomic(path, [&](std::ostream& out) { out << text; });
}

}  // namespace nvfp4
