// SPDX-License-Identifier: Apache-2.0
#include "report/compare.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <tuple>

#include "data/npy.hpp"
#include "measure/stats.hpp"

namespace nvfp4 {

namespace {

// Must equal kReportSchema (results.hpp); compare_test checks that it does.
constexpr std::string_view kSchema = "nvfp4bench.report/1";

struct ReportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using Key = std::tuple<std::string, std::string, std::string, std::string>;  // problem, shape, variant, dist

struct Entry {
  Key key;
  std::string status;             // upper case: PASS, FAIL, SKIP, ERROR
  std::optional<double> median;   // microseconds, only when timed with a positive median
  double noise = 0;               // relative, robust (see compare.hpp)
  std::string timer;              // "" when absent
};

struct Report {
  std::vector<Entry> entries;     // in report order, first of each key
  std::map<Key, size_t> index;
  int duplicates = 0;
};

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string get_string(const nlohmann::json& obj, const char* field, bool required, size_t i) {
  const auto it = obj.find(field);
  if (it == obj.end() || it->is_null()) {
    if (required) throw ReportError(fmt::format("results[{}] has no \"{}\"", i, field));
    return "";
  }
  if (!it->is_string()) throw ReportError(fmt::format("results[{}].{} is not a string", i, field));
  return it->get<std::string>();
}

std::optional<double> get_number(const nlohmann::json& obj, const char* field, size_t i) {
  const auto it = obj.find(field);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  if (!it->is_number()) throw ReportError(fmt::format("results[{}].timing.{} is not a number", i, field));
  return it->get<double>();
}

// The robust relative noise of one result's timing block, from the best field the report has.
double robust_noise_of(const nlohmann::json& t, size_t i) {
  auto usable = [](const std::optional<double>& v) { return v && std::isfinite(*v) && *v >= 0; };
  if (const auto rn = get_number(t, "robust_noise", i); usable(rn)) return *rn;
  if (const auto s = t.find("samples_us"); s != t.end() && s->is_array() && s->size() >= 2) {
    std::vector<double> v;
    for (const auto& x : *s)
      if (x.is_number()) v.push_back(x.get<double>());
    if (v.size() >= 2) return summarize(v).robust_noise;
  }
  const auto p10 = get_number(t, "p10_us", i), p90 = get_number(t, "p90_us", i), med = get_number(t, "median_us", i);
  if (usable(p10) && usable(p90) && usable(med) && *med > 0 && *p90 >= *p10)
    return (*p90 - *p10) / 2.5631 / *med;  // p90 - p10 spans 2.5631 standard deviations of a normal
  if (const auto n = get_number(t, "noise", i); usable(n)) return *n;
  if (const auto r = get_number(t, "rse", i); usable(r)) return *r;
  return 0;
}

Report load_report(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ReportError(fmt::format("{}: cannot open", path));
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw ReportError(fmt::format("{}: malformed JSON: {}", path, e.what()));
  }
  if (!doc.is_object()) throw ReportError(fmt::format("{}: not a JSON object", path));
  const auto schema = doc.find("schema");
  if (schema == doc.end() || !schema->is_string() || schema->get<std::string>() != kSchema) {
    throw ReportError(fmt::format("{}: schema is {}, expected \"{}\"", path,
                                  schema == doc.end() ? std::string("missing") : schema->dump(), kSchema));
  }
  const auto results = doc.find("results");
  if (results == doc.end() || !results->is_array()) {
    throw ReportError(fmt::format("{}: no \"results\" array", path));
  }

  Report rep;
  try {
    for (size_t i = 0; i < results->size(); ++i) {
      const auto& r = (*results)[i];
      if (!r.is_object()) throw ReportError(fmt::format("results[{}] is not an object", i));
      Entry e;
      e.key = Key{get_string(r, "problem", true, i), get_string(r, "shape", true, i),
                  get_string(r, "variant", true, i), get_string(r, "dist", false, i)};
      e.status = upper(get_string(r, "status", true, i));
      const auto t = r.find("timing");
      if (t != r.end() && !t->is_null()) {
        if (!t->is_object()) throw ReportError(fmt::format("results[{}].timing is not an object", i));
        const auto med = get_number(*t, "median_us", i);
        if (med && std::isfinite(*med) && *med > 0) e.median = med;
        e.noise = robust_noise_of(*t, i);
        if (const auto timer = t->find("timer"); timer != t->end() && timer->is_string()) e.timer = *timer;
      }
      if (rep.index.count(e.key)) {
        ++rep.duplicates;
        continue;
      }
      rep.index.emplace(e.key, rep.entries.size());
      rep.entries.push_back(std::move(e));
    }
  } catch (const ReportError& e) {
    throw ReportError(fmt::format("{}: {}", path, e.what()));
  }
  if (rep.duplicates) {
    std::cerr << fmt::format("nvfp4bench: warning: compare: {}: {} duplicate case(s) ignored (first kept)\n", path, rep.duplicates);
  }
  return rep;
}

bool is_failure(const std::string& status) { return status == "FAIL" || status == "ERROR"; }

// One case present in at least one report.
CompareRow compare_case(const Entry* b, const Entry* n, double threshold_pct, std::string& note) {
  CompareRow row;
  const Entry& any = b ? *b : *n;
  std::tie(row.problem, row.shape, row.variant, row.dist) = any.key;
  if (b) {
    row.base_status = b->status;
    row.base_median_us = b->median;
    row.base_noise = b->noise;
  }
  if (n) {
    row.new_status = n->status;
    row.new_median_us = n->median;
    row.new_noise = n->noise;
  }

  if (!n) {
    row.verdict = Verdict::missing;
    note = "not in new report";
    return row;
  }
  if (is_failure(n->status)) {
    row.verdict = Verdict::failed;
    note = b ? fmt::format("{} -> {}", b->status, n->status) : fmt::format("new case, {}", n->status);
    return row;
  }
  if (b && b->status == "PASS" && n->status != "PASS") {
    row.verdict = Verdict::failed;
    note = fmt::format("PASS -> {}", n->status);
    return row;
  }
  if (!b) {
    row.verdict = Verdict::added;
    note = "not in base report";
    return row;
  }
  if (b->median && n->median) {
    row.ratio = *n->median / *b->median;
    row.verdict = classify_change(*row.ratio, threshold_pct, b->noise, n->noise, &row.tolerance, &row.noise_tolerance);
    if (row.verdict == Verdict::noisy)
      note = fmt::format("noise asks {:.1f}% > cap {:.1f}% (robust noise {:.1f}% / {:.1f}%)", 100 * row.noise_tolerance,
                         kToleranceCap * threshold_pct, 100 * b->noise, 100 * n->noise);
    if (!b->timer.empty() && !n->timer.empty() && b->timer != n->timer)
      note += fmt::format("{}timer {} -> {}", note.empty() ? "" : "; ", b->timer, n->timer);
    return row;
  }
  if (n->median) {
    row.verdict = Verdict::added;
    note = fmt::format("base {}, not timed", b->status);
  } else if (b->median) {
    row.verdict = Verdict::missing;
    note = fmt::format("new {}, not timed", n->status);
  } else {
    row.verdict = Verdict::same;
    note = b->status == n->status ? fmt::format("{} in both, not timed", n->status)
                                  : fmt::format("{} -> {}, not timed", b->status, n->status);
  }
  return row;
}

std::string fmt_us(const std::optional<double>& v) { return v ? fmt::format("{:.3f}", *v) : "-"; }

struct Table {
  std::vector<std::string> header;
  std::vector<bool> right;  // right-aligned columns
  std::vector<std::vector<std::string>> rows;
};

void print_text(std::ostream& out, const Table& t) {
  std::vector<size_t> w(t.header.size());
  for (size_t c = 0; c < w.size(); ++c) {
    w[c] = t.header[c].size();
    for (const auto& r : t.rows) w[c] = std::max(w[c], r[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (size_t c = 0; c < cells.size(); ++c) {
      if (c) s += "  ";
      const bool last = c + 1 == cells.size();
      if (t.right[c]) s += fmt::format("{:>{}}", cells[c], w[c]);
      else s += last ? cells[c] : fmt::format("{:<{}}", cells[c], w[c]);
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out << s << '\n';
  };
  line(t.header);
  for (const auto& r : t.rows) line(r);
}

std::string markdown(const Table& t, const std::string& base_path, const std::string& new_path,
                     const std::string& summary) {
  auto cell = [](std::string s) {
    std::string o;
    for (char c : s) o += c == '|' ? std::string("\\|") : std::string(1, c);
    return o;
  };
  std::string md = "# nvfp4bench compare\n\n";
  md += fmt::format("Base: `{}`  \nNew: `{}`\n\n", base_path, new_path);
  md += "|";
  for (const auto& h : t.header) md += " " + cell(h) + " |";
  md += "\n|";
  for (size_t c = 0; c < t.header.size(); ++c) md += t.right[c] ? " ---: |" : " :--- |";
  md += "\n";
  for (const auto& r : t.rows) {
    md += "|";
    for (const auto& v : r) md += " " + cell(v) + " |";
    md += "\n";
  }
  md += "\n" + summary + "\n";
  return md;
}

}  // namespace

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::same: return "SAME";
    case Verdict::faster: return "FASTER";
    case Verdict::slower: return "SLOWER";
    case Verdict::added: return "NEW";
    case Verdict::missing: return "MISSING";
    case Verdict::failed: return "FAILED";
    case Verdict::noisy: return "NOISY";
  }
  return "?";
}

Verdict classify_change(double ratio, double threshold_pct, double base_noise, double new_noise,
                        double* tolerance_out, double* noise_tolerance_out) {
  const double threshold = threshold_pct / 100.0;
  const double noise = kNoiseK * std::sqrt(base_noise * base_noise + new_noise * new_noise);
  const double cap = kToleranceCap * threshold;
  const double tol = std::max(threshold, std::min(noise, cap));
  if (tolerance_out) *tolerance_out = tol;
  if (noise_tolerance_out) *noise_tolerance_out = noise;
  const double change = ratio - 1.0;
  if (std::abs(change) > tol) return change > 0 ? Verdict::slower : Verdict::faster;
  return noise > cap ? Verdict::noisy : Verdict::same;
}

int run_compare(const std::string& base_path, const std::string& new_path, double threshold_pct,
                const std::string& markdown_path, std::ostream& out, bool allow_noisy,
                const std::string& html_path) {
  if (!(threshold_pct >= 0) || !std::isfinite(threshold_pct)) {
    std::cerr << fmt::format("nvfp4bench: error: compare: threshold must be a non-negative percentage, got {}\n", threshold_pct);
    return 2;
  }
  Report base, cur;
  try {
    base = load_report(base_path);
    cur = load_report(new_path);
  } catch (const ReportError& e) {
    std::cerr << "nvfp4bench: error: compare: " << e.what() << '\n';
    return 2;
  }

  // Rows in base order, then the cases only NEW has, in its order.
  std::vector<CompareRow> rows;
  std::vector<std::string> notes;
  for (const auto& b : base.entries) {
    const auto it = cur.index.find(b.key);
    std::string note;
    rows.push_back(compare_case(&b, it == cur.index.end() ? nullptr : &cur.entries[it->second], threshold_pct, note));
    rows.back().note = note;
    notes.push_back(note);
  }
  for (const auto& n : cur.entries) {
    if (base.index.count(n.key)) continue;
    std::string note;
    rows.push_back(compare_case(nullptr, &n, threshold_pct, note));
    rows.back().note = note;
    notes.push_back(note);
  }

  Table t;
  t.header = {"problem", "shape", "variant", "dist", "base us", "new us", "new/base", "change", "tol", "verdict", "note"};
  t.right = {false, false, false, false, true, true, true, true, true, false, false};
  std::array<int, 7> counts{};
  std::vector<double> ratios;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    ++counts[static_cast<size_t>(r.verdict)];
    if (r.ratio) ratios.push_back(*r.ratio);
    t.rows.push_back({r.problem, r.shape, r.variant, r.dist.empty() ? "-" : r.dist, fmt_us(r.base_median_us),
                      fmt_us(r.new_median_us), r.ratio ? fmt::format("{:.3f}", *r.ratio) : "-",
                      r.ratio ? fmt::format("{:+.1f}%", 100.0 * (*r.ratio - 1.0)) : "-",
                      r.ratio ? fmt::format("{:.1f}%", 100.0 * r.tolerance) : "-", std::string(to_string(r.verdict)),
                      notes[i]});
  }

  const auto count = [&](Verdict v) { return counts[static_cast<size_t>(v)]; };
  const bool regression = count(Verdict::slower) > 0 || count(Verdict::failed) > 0;
  const bool noisy = count(Verdict::noisy) > 0;
  std::string geo = "-";
  if (!ratios.empty()) {
    double s = 0;
    for (double x : ratios) s += std::log(x);
    geo = fmt::format("{:.3f}", std::exp(s / double(ratios.size())));
  }
  const std::string summary = fmt::format(
      "compare: {} cases: {} same, {} faster, {} slower, {} failed, {} noisy, {} new, {} missing; geomean new/base {} "
      "(threshold {}%, noise k={}, tolerance cap {}x threshold) -> {}",
      rows.size(), count(Verdict::same), count(Verdict::faster), count(Verdict::slower), count(Verdict::failed),
      count(Verdict::noisy), count(Verdict::added), count(Verdict::missing), geo, threshold_pct, kNoiseK, kToleranceCap,
      regression ? "REGRESSION" : noisy ? (allow_noisy ? "OK (noisy cases allowed)" : "NOISY") : "OK");

  print_text(out, t);
  if (noisy) {
    out << fmt::format("too noisy to judge ({}; --allow-noisy accepts them):\n",
                       allow_noisy ? "allowed" : "exit code 5");
    for (const auto& r : rows)
      if (r.verdict == Verdict::noisy) out << fmt::format("  {} {} {} {}\n", r.problem, r.shape, r.variant, r.dist);
  }
  out << summary << '\n';

  if (!markdown_path.empty() || !html_path.empty()) {
    try {
      if (!markdown_path.empty()) {
        const std::string md = markdown(t, base_path, new_path, summary);
        write_file_atomic(markdown_path, [&](std::ostream& f) { f << md; });
      }
      if (!html_path.empty())
        write_compare_html(html_path, CompareView{base_path, new_path, threshold_pct, summary,
                                                  regression ? "REGRESSION" : noisy ? "NOISY" : "OK", rows});
    } catch (const std::exception& e) {
      std::cerr << "nvfp4bench: error: compare: " << e.what() << '\n';
      return 2;
    }
  }
  return regression ? 4 : noisy && !allow_noisy ? kExitNoisy : 0;
}

}  // namespace nvfp4
