// SPDX-License-Identifier: Apache-2.0
// --plugin without a GPU: every load error is one UsageError line naming the file and the rule;
// the example plugin's variants become VariantInfos named example:<variant>; the C case view
// has the strides and both scale layouts of nvfp4bench's own view.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>

#include "cli/plan.hpp"
#include "core/nvfp4.hpp"
#include "report/report.hpp"
#include "report/report_read.hpp"
#include "run/plugin.hpp"

using namespace nvfp4;

namespace {

std::string plugin_path(const std::string& file) {
  const char* env = std::getenv("NVFP4_PLUGIN_DIR");
  return std::string(env && *env ? env : NVFP4_PLUGIN_DIR) + "/" + file;
}

// The UsageError text of loading `paths`, or "" when they load.
std::string load_error(const std::vector<std::string>& paths) {
  try {
    load_plugins(paths);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

void expect_error(const std::vector<std::string>& paths, const std::string& file, const std::string& rule) {
  const std::string err = load_error(paths);
  EXPECT_NE(err.find("--plugin '" + file + "'"), std::string::npos) << err;
  EXPECT_NE(err.find(rule), std::string::npos) << err;
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;
}

}  // namespace

TEST(Plugin, MissingFile) { expect_error({"/no/such/plugin.so"}, "/no/such/plugin.so", "no such file"); }

TEST(Plugin, NotASharedLibrary) {
  const std::string path = std::string(NVFP4_SOURCE_DIR) + "/README.md";
  expect_error({path}, path, "cannot be loaded as a shared library");
}

TEST(Plugin, NoEntryPoint) {
  const std::string path = plugin_path("fixture_no_entry.so");
  expect_error({path}, path, "does not export the entry point nvfp4bench_get_plugin()");
}

TEST(Plugin, WrongAbiVersion) {
  const std::string path = plugin_path("fixture_bad_abi.so");
  expect_error({path}, path, fmt::format("plugin ABI version {}, this nvfp4bench loads version {} only",
                                         NVFP4BENCH_PLUGIN_ABI_VERSION + 98, NVFP4BENCH_PLUGIN_ABI_VERSION));
}

TEST(Plugin, VariantNameTwice) {
  const std::string path = plugin_path("fixture_dup_name.so");
  expect_error({path}, path, "name clash: variant 'twice' of gemm appears twice");
}

TEST(Plugin, BadPluginName) {
  const std::string path = plugin_path("fixture_bad_name.so");
  expect_error({path}, path, "plugin name must be non-empty and only a-z, 0-9");
}

TEST(Plugin, SamePluginTwice) {
  const std::string path = plugin_path("example_plugin.so");
  expect_error({path, path}, path, "name clash: plugin name 'example' is already used by");
}

TEST(Plugin, ExampleLoads) {
  const LoadedPlugins p = load_plugins({plugin_path("example_plugin.so")});
  ASSERT_EQ(p.records.size(), 1u);
  EXPECT_EQ(p.records[0].name, "example");
  EXPECT_EQ(p.records[0].abi_version, NVFP4BENCH_PLUGIN_ABI_VERSION);
  EXPECT_EQ(p.records[0].path.front(), '/');
  ASSERT_EQ(p.variants.size(), 5u);
  EXPECT_EQ(p.variants[0]->name, "example:rowmajor");
  EXPECT_EQ(p.variants[0]->problem, Problem::gemm);
  EXPECT_EQ(p.variants[1]->name, "example:blocked");
  EXPECT_EQ(p.variants[2]->name, "example:rowmajor");
  EXPECT_EQ(p.variants[2]->problem, Problem::group_gemm);
  EXPECT_EQ(p.variants[3]->problem, Problem::gemv);
  EXPECT_EQ(p.variants[4]->problem, Problem::dual_gemm);
  EXPECT_FALSE(p.variants[0]->summary.empty());
  // The plugin's supported() goes through the VariantInfo (no GPU needed to ask).
  DeviceInfo dev;
  dev.cc_major = 9;
  EXPECT_EQ(p.variants[0]->unsupported(dev, parse_shape(Problem::gemm, "128x256x256")), "");
  EXPECT_NE(p.variants[0]->unsupported(dev, parse_shape(Problem::gemm, "70000x256x256")), "");

  check_plugin_variant_names({"naive", "example:blocked"}, p.variants);
  try {
    check_plugin_variant_names({"example:fast"}, p.variants);
    ADD_FAILURE() << "example:fast accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--variant 'example:fast': no loaded plugin or submission has this variant"),
              std::string::npos);
  }
}

TEST(Plugin, CaseView) {
  // A dual_gemm-like view with fake pointers: the C view carries them, with contiguous strides.
  CaseView c;
  c.problem = Problem::dual_gemm;
  GemmOperands op;
  op.dims = {200, 96, 512, 3};
  auto fake = [](uintptr_t v) { return reinterpret_cast<const uint8_t*>(v); };
  op.a = {fake(0x1000), fake(0x2000), fake(0x3000), 200, 512, 3};
  op.b = {fake(0x4000), fake(0x5000), fake(0x6000), 96, 512, 3};
  op.b2 = {fake(0x7000), fake(0x8000), fake(0x9000), 96, 512, 3};
  op.c = reinterpret_cast<__half*>(0xa000);
  c.groups.push_back(op);
  const PluginCaseView v = to_plugin_view(c);
  const nvfp4bench_case cc = v.as_case();
  EXPECT_EQ(cc.problem, NVFP4BENCH_DUAL_GEMM);
  ASSERT_EQ(cc.group_count, 1);
  const nvfp4bench_group& g = cc.groups[0];
  EXPECT_EQ(g.dims.m, 200);
  EXPECT_EQ(g.dims.l, 3);
  EXPECT_EQ(g.a.data, fake(0x1000));
  EXPECT_EQ(g.a.sf, fake(0x2000));
  EXPECT_EQ(g.a.sf_blocked, fake(0x3000));
  EXPECT_EQ(g.b2.sf_blocked, fake(0x9000));
  EXPECT_EQ(g.a.data_stride_row, 256);
  EXPECT_EQ(g.a.data_stride_l, 200 * 256);
  EXPECT_EQ(g.a.sf_stride_row, 32);
  EXPECT_EQ(g.a.sf_stride_l, 200 * 32);
  // Blocked: ceil(200/128) = 2 row blocks x ceil(32/4) = 8 column blocks of 512 bytes per batch.
  EXPECT_EQ(g.a.sf_blocked_stride_l, 2 * 8 * 512);
  EXPECT_EQ(g.b.sf_blocked_stride_l, 1 * 8 * 512);
  // The header's blocked formula equals the format's (core/nvfp4.hpp) at a few points.
  const SfGeometry geo{200, 32, 3};
  for (int64_t i : {0, 31, 77, 130, 199})
    for (int64_t j : {0, 3, 5, 31})
      for (int64_t b : {0, 2})
        EXPECT_EQ(b * g.a.sf_blocked_stride_l + (i / 128) * 8 * 512 + (j / 4) * 512 + (i % 32) * 16 + ((i % 128) / 32) * 4 + j % 4,
                  geo.blocked_offset(i, j, b));
  EXPECT_EQ(g.c, reinterpret_cast<void*>(0xa000));
  EXPECT_EQ(g.c_stride_row, 96);
  EXPECT_EQ(g.c_stride_l, 200 * 96);
  // gemm has no b2: all zero.
  c.problem = Problem::gemm;
  c.groups[0].b2 = {};
  const PluginCaseView v2 = to_plugin_view(c);
  EXPECT_EQ(v2.groups[0].b2.data, nullptr);
  EXPECT_EQ(v2.groups[0].b2.rows, 0);
}

TEST(Plugin, ReportRecordsPlugins) {
  RunInfo info;
  info.tool_version = "0.1.0";
  info.plugins.push_back({"example", "/x/example_plugin.so", NVFP4BENCH_PLUGIN_ABI_VERSION, {"gemm/example:rowmajor"}});
  const std::string text = json_report_text(info, {});
  EXPECT_NE(text.find("\"plugins\""), std::string::npos);
  const ReportFile back = parse_json_report(text, "mem.json");
  ASSERT_EQ(back.info.plugins.size(), 1u);
  EXPECT_EQ(back.info.plugins[0].name, "example");
  EXPECT_EQ(back.info.plugins[0].path, "/x/example_plugin.so");
  EXPECT_EQ(back.info.plugins[0].abi_version, NVFP4BENCH_PLUGIN_ABI_VERSION);
  EXPECT_EQ(back.info.plugins[0].variants, std::vector<std::string>{"gemm/example:rowmajor"});
  // No plugin: no "plugins" key (reports without plugins are unchanged).
  EXPECT_EQ(json_report_text(RunInfo{}, {}).find("\"plugins\""), std::string::npos);
}

TEST(Plugin, FailingFixtureLoads) {  // its ERROR rows are a GPU test (gpu/plugin_test.cpp)
  const LoadedPlugins p = load_plugins({plugin_path("fixture_fails.so")});
  ASSERT_EQ(p.variants.size(), 2u);
  EXPECT_EQ(p.variants[0]->name, "fails:prepare");
  EXPECT_EQ(p.variants[1]->name, "fails:run");
}
