// SPDX-License-Identifier: Apache-2.0
// html_writer.cpp: the self-contained HTML report. One file: the page's CSS, Chart.js and our
// JavaScript inlined (report/html_assets.hpp, embedded into the binary at build time) and the
// data as a JSON island. The data of a run's page is its JSON report itself, so the page is made
// from the JSON alone; a Content-Security-Policy forbids every network request.
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "data/npy.hpp"
#include "report/compare.hpp"
#include "report/html_assets.hpp"
#include "report/report.hpp"
#include "report/report_read.hpp"

namespace nvfp4 {
namespace {

namespace assets = report::assets;

std::string escape_html(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// JSON text inside <script>: '<' only occurs in strings, where \u003c means the same, so no
// "</script>" or "<!--" can end or change the element.
std::string script_safe_json(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  for (char c : json) out += c == '<' ? std::string("\\u003c") : std::string(1, c);
  return out;
}

// `kind`: "report" or "compare"; `app`: that page's script.
std::string html_page(std::string_view kind, std::string_view title, std::string_view data_json, std::string_view app) {
  std::string page;
  page += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  page += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; "
          "style-src 'unsafe-inline'; img-src data:\">\n";
  page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  page += fmt::format("<meta name=\"generator\" content=\"nvfp4bench {}\">\n", NVFP4BENCH_VERSION);
  page += fmt::format("<title>{}</title>\n", escape_html(title));
  page += "<style>\n";
  page += assets::text(assets::page_css, assets::page_css_size);
  page += "</style>\n</head>\n";
  page += fmt::format("<body data-kind=\"{}\">\n<div id=\"app\"><noscript>This report draws its tables and charts "
                      "with JavaScript.</noscript></div>\n",
                      kind);
  page += "<script type=\"application/json\" id=\"nvfp4-data\">";
  page += script_safe_json(data_json);
  page += "</script>\n<script>\n";
  page += assets::text(assets::chart_js, assets::chart_js_size);
  page += "\n</script>\n<script>\n";
  page += assets::text(assets::common_js, assets::common_js_size);
  page += "\n";
  page += app;
  page += "\n</script>\n</body>\n</html>\n";
  return page;
}

using Json = nlohmann::ordered_json;

// Who made a report, for the compare page's header; whatever the file has (compare reads older
// reports too, so nothing here is required).
Json report_header(const std::string& path) {
  Json h{{"path", path}};
  std::ifstream in(path, std::ios::binary);
  const Json j = Json::parse(in, nullptr, false);
  if (!j.is_object()) return h;
  auto copy = [&](const Json& from, const char* key, const char* as) {
    if (from.is_object() && from.contains(key) && from[key].is_string()) h[as] = from[key];
  };
  if (j.contains("tool")) copy(j["tool"], "git_sha", "git_sha");
  if (j.contains("device")) copy(j["device"], "name", "device");
  copy(j, "timestamp", "timestamp");
  copy(j, "command_line", "command_line");
  return h;
}

}  // namespace

void write_html(const std::string& path, const ReportFile& report) {
  const RunInfo& info = report.info;
  const std::string title = fmt::format("nvfp4bench: {}{}", info.device ? info.device->name : std::string("no GPU"),
                                        info.timestamp.empty() ? "" : ", " + info.timestamp);
  const std::string page = html_page("report", title, report.json, assets::text(assets::report_js, assets::report_js_size));
  write_file_atomic(path, [&](std::ostream& out) { out << page; });
}

void write_compare_html(const std::string& path, const CompareView& v) {
  Json j;
  j["kind"] = "nvfp4bench.compare";
  j["base"] = report_header(v.base_path);
  j["new"] = report_header(v.new_path);
  j["threshold_pct"] = v.threshold_pct;
  j["noise_k"] = kNoiseK;
  j["tolerance_cap"] = kToleranceCap;
  j["summary"] = v.summary;
  j["outcome"] = v.outcome;
  Json rows = Json::array();
  auto num = [](const std::optional<double>& x) { return x && std::isfinite(*x) ? Json(*x) : Json(nullptr); };
  for (const CompareRow& r : v.rows)
    rows.push_back(Json{{"problem", r.problem}, {"shape", r.shape}, {"variant", r.variant}, {"dist", r.dist},
                        {"base_status", r.base_status}, {"new_status", r.new_status},
                        {"base_median_us", num(r.base_median_us)}, {"new_median_us", num(r.new_median_us)},
                        {"base_noise", r.base_noise}, {"new_noise", r.new_noise}, {"ratio", num(r.ratio)},
                        {"tolerance", r.tolerance}, {"verdict", to_string(r.verdict)}, {"note", r.note}});
  j["rows"] = std::move(rows);
  const std::string data = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  const std::string title = fmt::format("nvfp4bench compare: {} vs {}", v.new_path, v.base_path);
  const std::string page = html_page("compare", title, data, assets::text(assets::compare_js, assets::compare_js_size));
  write_file_atomic(path, [&](std::ostream& out) { out << page; });
}

void write_formats(const ReportFile& report, const OutputPaths& o) {
  if (!o.csv.empty()) write_csv(o.csv, report.info, report.results);
  if (!o.markdown.empty()) write_markdown(o.markdown, report.info, report.results);
  if (!o.html.empty()) write_html(o.html, report);
}

}  // namespace nvfp4
