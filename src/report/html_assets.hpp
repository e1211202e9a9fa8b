// SPDX-License-Identifier: Apache-2.0
// html_assets.hpp: the files the HTML report inlines, carried by the binary (cmake/embed_assets.cmake
// writes them into generated/html_assets.cpp at build time), so `render` needs nothing installed:
//   chart_js     Chart.js, from Debian's libjs-chart.js (MIT license, upstream chartjs.org)
//   page_css     src/report/html/page.css
//   common_js    src/report/html/common.js   (helpers, the sortable and filterable table)
//   report_js    src/report/html/report.js   (the page of one report: metadata, table, charts)
//   compare_js   src/report/html/compare.js  (the regression view of `compare --html`)
#pragma once

#include <cstddef>
#include <string_view>

namespace nvfp4::report::assets {

extern const unsigned char chart_js[], page_css[], common_js[], report_js[], compare_js[];
extern const size_t chart_js_size, page_css_size, common_js_size, report_js_size, compare_js_size;

inline std::string_view text(const unsigned char* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace nvfp4::report::assets
