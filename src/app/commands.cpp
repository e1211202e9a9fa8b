// SPDX-License-Identifier: Apache-2.0
#include "app/commands.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/device_info.hpp"
#include "measure/calibrate.hpp"
#include "report/compare.hpp"
#include "report/report.hpp"
#include "report/report_read.hpp"

namespace nvfp4 {

namespace {

constexpr int kExitUsage = 2, kExitRuntime = 3;

// Parses with CLI11; returns an exit code when parsing ends the command (help or error).
std::optional<int> parse(CLI::App& app, int argc, const char* const* argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "nvfp4bench: error: " << app.get_name() << ": " << e.what() << '\n';
    return kExitUsage;
  }
  return std::nullopt;
}

}  // namespace

int compare_command(int argc, const char* const* argv) {
  CLI::App app("Compares two nvfp4bench JSON reports case by case (exit 4 on a regression, 5 on a case too noisy to judge).", "compare");
  std::string base, fresh, markdown;
  double threshold = 5.0;
  app.add_option("base", base, "baseline report (JSON)")->required();
  app.add_option("new", fresh, "new report (JSON)")->required();
  app.add_option("--threshold", threshold, "percent change that counts as SLOWER/FASTER beyond noise")
      ->check(CLI::Range(0.0, 1000.0));
  app.add_option("--markdown", markdown, "also write the table as Markdown (for a pull-request comment)");
  std::string html;
  app.add_option("--html", html, "also write the regression view as a self-contained HTML page (ratios chart, table)");
  bool allow_noisy = false;
  app.add_flag("--allow-noisy", allow_noisy,
               "NOISY cases (noise beyond the tolerance cap) do not make the exit code non-zero");
  if (auto code = parse(app, argc, argv)) return *code;
  return run_compare(base, fresh, threshold, markdown, std::cout, allow_noisy, html);
}

int render_command(int argc, const char* const* argv) {
  CLI::App app("Renders a saved JSON report as HTML, Markdown or CSV (no GPU needed); with no output, prints the "
               "table. The files equal those the run itself would have written.",
               "render");
  std::string json_path;
  OutputPaths out;
  app.add_option("report", json_path, "JSON report (schema nvfp4bench.report/1)")->required();
  app.add_option("--html", out.html, "write the self-contained HTML report");
  app.add_option("--markdown", out.markdown, "write the Markdown report");
  app.add_option("--csv", out.csv, "write the CSV report");
  if (auto code = parse(app, argc, argv)) return *code;
  ReportFile report;
  try {
    report = read_json_report(json_path);
  } catch (const std::exception& e) {
    std::cerr << "nvfp4bench: error: render: " << e.what() << '\n';
    return kExitUsage;
  }
  try {
    if (out.html.empty() && out.markdown.empty() && out.csv.empty()) print_table(std::cout, report.results);
    write_formats(report, out);
  } catch (const std::exception& e) {
    std::cerr << "nvfp4bench: error: render: " << e.what() << '\n';
    return kExitRuntime;
  }
  return 0;
}

int calibrate_command(int argc, const char* const* argv) {
  CLI::App app("Measures this GPU's HBM read bandwidth and dense tensor-core rate beside the spec table, and on "
               "CC 9.0 the ceiling of the wgmma kernels' path (FP4 decode in registers feeding wgmma).",
               "calibrate");
  int device = 0;
  std::string json_path;
  app.add_option("--device", device, "CUDA device index");
  app.add_option("--json", json_path, "write the measurement as JSON");
  if (auto code = parse(app, argc, argv)) return *code;
  if (device_count() == 0) {
    std::cerr << "nvfp4bench: calibrate: no CUDA GPU found (no driver or no device): nothing to measure\n";
    return kExitRuntime;
  }
  try {
    CUDA_CHECK(cudaSetDevice(device));
    const DeviceInfo dev = query_device(device);
    Stream stream;
    const Calibration cal = calibrate(dev, stream.get());
    const auto spec = sol_rates_for(dev.name, dev.cc());
    std::cout << fmt::format("{} (sm_{}{}, {} SMs)\n", dev.name, dev.cc_major, dev.cc_minor, dev.sms);
    std::cout << fmt::format("{:<30} {:>12} {:>12} {:>8}\n", "rate", "spec", "measured", "ratio");
    auto row = [&](const char* what, std::optional<double> s, std::optional<double> m, const char* unit) {
      std::cout << fmt::format("{:<30} {:>12} {:>12} {:>8}\n", fmt::format("{} ({})", what, unit),
                               s ? fmt::format("{:.0f}", *s) : "-", m ? fmt::format("{:.0f}", *m) : "-",
                               s && m ? fmt::format("{:.0f}%", 100 * *m / *s) : "-");
    };
    const bool fp4_native = spec && spec->flops_kind == "fp4-tensor";
    row("HBM read", spec ? std::optional(spec->hbm_bytes_per_s / 1e9) : std::nullopt, cal.hbm_read_gbps, "GB/s");
    row("FP16 tensor dense", spec && !fp4_native ? std::optional(spec->flops_per_s / 1e12) : std::nullopt,
        cal.fp16_tensor_tflops, "TFLOP/s");
    row("FP4 tensor dense", fp4_native ? std::optional(spec->flops_per_s / 1e12) : std::nullopt,
        cal.fp4_tensor_tflops, "TFLOP/s");
    // The wgmma path has no spec rate: its ceiling is only measured.
    row("FP4 decode + wgmma", std::nullopt, cal.decode_wgmma_tflops, "TFLOP/s");
    row("wgmma RS, no decode", std::nullopt, cal.wgmma_rs_tflops, "TFLOP/s");
    row("FP4 decode + mma.sync", std::nullopt, cal.decode_mma_tflops, "TFLOP/s");
    row("mma.sync, no decode", std::nullopt, cal.mma_sync_tflops, "TFLOP/s");
    std::cout << cal.notes << '\n';
    if (!json_path.empty()) {
      nlohmann::ordered_json j;
      j["schema"] = "nvfp4bench.calibration/1";
      j["device"] = dev.name;
      j["hbm_read_gbps"] = cal.hbm_read_gbps;
      j["fp16_tensor_tflops"] = cal.fp16_tensor_tflops;
      auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
      j["fp4_tensor_tflops"] = opt(cal.fp4_tensor_tflops);
      j["decode_wgmma_tflops"] = opt(cal.decode_wgmma_tflops);
      j["wgmma_rs_tflops"] = opt(cal.wgmma_rs_tflops);
      j["decode_mma_tflops"] = opt(cal.decode_mma_tflops);
      j["mma_sync_tflops"] = opt(cal.mma_sync_tflops);
      j["notes"] = cal.notes;
      std::ofstream(json_path) << j.dump(2) << '\n';
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "nvfp4bench: error: calibrate: " << e.what() << '\n';
    return kExitRuntime;
  }
}

}  // namespace nvfp4
