// SPDX-License-Identifier: Apache-2.0
// plan_test.cpp: command line and config parsing (src/cli/), good and bad inputs. Every bad
// input must throw UsageError whose one-line message names the flag / field and the value.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/plan.hpp"

namespace nvfp4 {
namespace {

namespace fs = std::filesystem;

std::optional<RunPlan> parse(std::vector<std::string> args) {
  args.insert(args.begin(), "nvfp4bench");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  return parse_command_line(static_cast<int>(argv.size()), argv.data());
}

// The UsageError message of parse(args); fails the test when nothing is thrown.
std::string usage_error(std::vector<std::string> args) {
  try {
    parse(std::move(args));
  } catch (const UsageError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "not one line: " << msg;
    return msg;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected UsageError, got " << e.what();
    return {};
  }
  ADD_FAILURE() << "expected UsageError, nothing thrown";
  return {};
}

#define EXPECT_HAS(msg, part) EXPECT_NE((msg).find(part), std::string::npos) << "message: " << (msg)

class PlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = (fs::temp_directory_path() / "nvfp4_plan_XXXXXX").string();
    ASSERT_NE(::mkdtemp(templ.data()), nullptr);
    m_dir = templ;
  }
  void TearDown() override { fs::remove_all(m_dir); }

  // Writes a config file and returns its path.
  std::string config(const std::string& text, const std::string& name = "c.json") const {
    const std::string path = (fs::path(m_dir) / name).string();
    std::ofstream(path) << text;
    return path;
  }
  // A valid config with one case whose fields are spliced in.
  std::string case_config(const std::string& case_fields, const std::string& top = "") const {
    return config(R"({)" + top + R"("cases": [{"problem": "gemm", "shape": "128x256x256", "role": "test"},
                                              {)" + case_fields + R"(}]})");
  }
  std::string m_dir;
};

// ---- command line ----

TEST_F(PlanTest, SingleShapeDefaults) {
  const auto plan = parse({"--problem", "gemv", "--shape", "7168x16384x1"});
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->command, Command::run);
  ASSERT_EQ(plan->cases.size(), 1u);
  EXPECT_EQ(plan->cases[0].problem, Problem::gemv);
  EXPECT_EQ(plan->cases[0].shape.groups[0], (Dims{7168, 1, 16384, 1}));
  EXPECT_EQ(plan->cases[0].seed, 1111u);
  EXPECT_EQ(plan->cases[0].dist, Dist::gpumode);
  EXPECT_EQ(plan->cases[0].role, "");
  EXPECT_TRUE(plan->variants.empty());
  EXPECT_TRUE(plan->timing_enabled);
  EXPECT_EQ(plan->tolerance.rtol, 1e-3);
  EXPECT_EQ(plan->tolerance.atol, 1e-3);
  EXPECT_EQ(plan->device, 0);
  EXPECT_EQ(plan->argv.size(), 5u);
  EXPECT_EQ(plan->argv[0], "nvfp4bench");
  EXPECT_EQ(plan->argv[4], "7168x16384x1");
}

TEST_F(PlanTest, VariantsAndRepeatedShapes) {
  const auto plan = parse({"--problem", "gemm", "--shape", "128x7168x16384", "--shape", "256x512x1024x2",
                           "--variant", "naive,cublaslt", "--variant", "tensor-core,naive"});
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->cases.size(), 2u);
  EXPECT_EQ(plan->cases[1].shape.groups[0], (Dims{256, 512, 1024, 2}));
  EXPECT_EQ(plan->variants, (std::vector<std::string>{"naive", "cublaslt", "tensor-core"}));
}

TEST_F(PlanTest, GroupShapeIsOneCase) {
  const auto plan = parse({"--problem", "group_gemm", "--shape", "80x4096x7168,176x4096x7168"});
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->cases.size(), 1u);
  ASSERT_EQ(plan->cases[0].shape.groups.size(), 2u);
  EXPECT_EQ(plan->cases[0].shape.groups[1], (Dims{176, 4096, 7168, 1}));
}

TEST_F(PlanTest, AllSettingFlags) {
  const auto plan = parse({"--problem", "dual_gemm", "--shape", "256x512x256", "--seed", "42", "--dist", "uniform",
                           "--rtol", "0.01", "--atol", "0", "--l2", "warm", "--warmup", "0", "--min-samples", "2",
                           "--max-samples", "7", "--min-time", "0.01", "--max-time", "0.5", "--target-rse", "0.02",
                           "--verify-only", "--device", "1", "--role", "test"});
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->cases[0].seed, 42u);
  EXPECT_EQ(plan->cases[0].dist, Dist::uniform);
  EXPECT_EQ(plan->tolerance.rtol, 0.01);
  EXPECT_EQ(plan->tolerance.atol, 0.0);
  EXPECT_EQ(plan->timing.l2, L2Mode::warm);
  EXPECT_EQ(plan->timing.warmup, 0);
  EXPECT_EQ(plan->timing.min_samples, 2);
  EXPECT_EQ(plan->timing.max_samples, 7);
  EXPECT_EQ(plan->timing.min_time_s, 0.01);
  EXPECT_EQ(plan->timing.max_time_s, 0.5);
  EXPECT_EQ(plan->timing.target_rse, 0.02);
  EXPECT_FALSE(plan->timing_enabled);
  EXPECT_EQ(plan->device, 1);
}

TEST_F(PlanTest, ListCommand) {
  const auto plan = parse({"list"});
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->command, Command::list);
  EXPECT_TRUE(plan->cases.empty());
}

TEST_F(PlanTest, HelpReturnsNothing) {
  testing::internal::CaptureStdout();
  const auto plan = parse({"--help"});
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_FALSE(plan);
  EXPECT_HAS(out, "--shape");
  EXPECT_HAS(out, "--config");
}

TEST_F(PlanTest, OutputsAndDump) {
  const std::string j = m_dir + "/r.json", c = m_dir + "/r.csv", md = m_dir + "/r.md", dump = m_dir + "/cases/";
  const auto plan = parse({"--problem", "gemm", "--shape", "256x512x1024", "--json", j, "--csv", c, "--markdown", md,
                           "--dump", dump});
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->outputs.json, j);
  EXPECT_EQ(plan->outputs.csv, c);
  EXPECT_EQ(plan->outputs.markdown, md);
  EXPECT_EQ(plan->outputs.dump_dir, dump);
}

TEST_F(PlanTest, BadCommandLines) {
  EXPECT_HAS(usage_error({"--problem", "gemx", "--shape", "1x2x3"}), "--problem 'gemx': unknown problem");
  EXPECT_HAS(usage_error({"--problem", "gemm", "--shape", "128x256x256", "--variant", "fast"}),
             "--variant 'fast': unknown variant (known: naive, vectorized, tensor-core, persistent, cublaslt)");
  EXPECT_HAS(usage_error({"--problem", "gemm", "--shape", "128x256x256", "--variant", "naive,,cublaslt"}),
             "empty variant name");
  EXPECT_HAS(usage_error({"--problem", "gemm"}), "--problem gemm needs --shape");
  EXPECT_HAS(usage_error({"--shape", "128x256x256"}), "--shape needs --problem");
  EXPECT_HAS(usage_error({}), "nothing to run");
  EXPECT_HAS(usage_error({"--bogus"}), "--bogus");
  EXPECT_HAS(usage_error({"--problem", "gemm", "--shape", "128x256x256", "--seed", "-1"}), "--seed '-1'");
  EXPECT_HAS(usage_error({"--problem", "gemm", "--shape", "128x256x256", "--seed", "12a"}), "--seed '12a'");
  EXPECT_HAS(usage_error({"--problem", "gemm", "--shape", "128x256x256", "--dist", "normal"}), "--dist 'normal'");
  EXPECT_HAS(usage_error({"--problem", "gemm", "--shape", "128x256x256", "--rtol", "-0.1"}),
             "--rtol '-0.1': must be >= 0");
  EXPECT_HAS(usage_error({"--problem", "gemm", "--shape", "128x256x256", "--atol", "nan"}), "--atol 'nan'");
  EXPECT_HAS(usage_error({"--problem", "gemm", "--shape", "128x256x256", "--l2", "hot"}), "--l2 'hot'");
  EXPECT_HAS(usage_error({"--problem", "gemm", "--shape", "128x256x256", "--min-samples", "0"}),
             "--min-samples '0': must be >= 1");
  EXPECT_HAS(usage_error({"--problem", "gemm", "--shape", "128x256x256", "--min-samples", "9", "--max-samples", "3"}),
             "--min-samples 9: min_samples must be <= max_samples (3, from --max-samples)");
  EXPECT_HAS(usage_error({"--problem", "gemm", "--shape", "128x256x256", "--max-time", "0"}),
             "--max-time '0': must be > 0");
  EXPECT_HAS(usage_error({"--problem", "gemm", "--shape", "128x256x256", "--min-time", "5", "--max-time", "1"}),
             "--min-time 5");
  EXPECT_HAS(usage_error({"--problem", "gemm", "--shape", "128x256x256", "--role", "bench"}), "--role 'bench'");
  EXPECT_HAS(usage_error({"--problem", "gemm", "--shape", "128x256x256", "--device", "-2"}), "--device '-2'");
  EXPECT_HAS(usage_error({"--problem", "gemm", "--shape", "128x256x256", "--warmup", "x"}),
             "--warmup 'x': must be a whole number");
}

TEST_F(PlanTest, BadShapesOnTheCommandLine) {
  EXPECT_HAS(usage_error({"--problem", "gemm", "--shape", "12x"}), "--shape '12x': '' is not a whole number");
  EXPECT_HAS(usage_error({"--problem", "gemm", "--shape", "128x0x256"}),
             "--shape '128x0x256': every dimension must be positive");
  EXPECT_HAS(usage_error({"--problem", "gemm", "--shape", "128x-4x256"}), "--shape '128x-4x256'");
  EXPECT_HAS(usage_error({"--problem", "gemm", "--shape", "axbxc"}), "--shape 'axbxc'");
  EXPECT_HAS(usage_error({"--problem", "gemm", "--shape", "128x256x100"}),
             "--shape '128x256x100': K must be a multiple of 256");
  EXPECT_HAS(usage_error({"--problem", "gemv", "--shape", "128x256"}), "--shape '128x256'");
  EXPECT_HAS(usage_error({"--problem", "gemv", "--shape", "128x100x1"}), "K must be a multiple of 64");
  EXPECT_HAS(usage_error({"--problem", "group_gemm", "--shape", "80x4096x7168,176x4096"}),
             "--shape '80x4096x7168,176x4096'");
}

TEST_F(PlanTest, UnwritableOutputs) {
  EXPECT_HAS(usage_error({"--problem", "gemm", "--shape", "128x256x256", "--json", m_dir + "/nope/x.json"}),
             "--json " + m_dir + "/nope/x.json: directory '" + m_dir + "/nope' does not exist");
  config("{}", "file");
  EXPECT_HAS(usage_error({"--problem", "gemm", "--shape", "128x256x256", "--csv", m_dir + "/file/x.csv"}),
             "is not a directory");
  EXPECT_HAS(usage_error({"--problem", "gemm", "--shape", "128x256x256", "--markdown", m_dir}), "is a directory");
  EXPECT_HAS(usage_error({"--problem", "gemm", "--shape", "128x256x256", "--dump", m_dir + "/a/b/"}),
             "--dump " + m_dir + "/a/b: directory '" + m_dir + "/a' does not exist");
  EXPECT_HAS(usage_error({"--problem", "gemm", "--shape", "128x256x256", "--dump", m_dir + "/file"}),
             "is not a directory");
  if (::geteuid() != 0) {  // root writes anywhere
    fs::create_directory(m_dir + "/ro");
    fs::permissions(m_dir + "/ro", fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_HAS(usage_error({"--problem", "gemm", "--shape", "128x256x256", "--json", m_dir + "/ro/x.json"}),
               "is not writable");
    fs::permissions(m_dir + "/ro", fs::perms::owner_all);
  }
}

// ---- config ----

TEST_F(PlanTest, FullConfig) {
  const std::string path = config(R"({
    "schema": "nvfp4bench.config/1",
    "description": "all fields",
    "seed": 7, "dist": "uniform",
    "variants": ["naive", "cublaslt"],
    "tolerance": {"rtol": 0.002, "atol": 0.003},
    "timing": {"l2": "warm", "warmup": 1, "min_samples": 3, "max_samples": 30,
               "min_time_s": 0.05, "max_time_s": 0.25, "target_rse": 0.01},
    "cases": [
      {"problem": "gemv", "shape": "7168x16384x1", "role": "benchmark", "b200_target_us": 8.622},
      {"problem": "group_gemm", "shape": "96x128x256,128x256x512", "role": "test", "seed": 9, "dist": "gpumode"},
      {"problem": "gemm", "shape": "128x256x256"}
    ]})");
  const auto plan = parse({"--config", path});
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->config_path, path);
  ASSERT_EQ(plan->cases.size(), 3u);
  EXPECT_EQ(plan->cases[0].role, "benchmark");
  EXPECT_EQ(plan->cases[0].b200_target_us, 8.622);
  EXPECT_EQ(plan->cases[0].seed, 7u);
  EXPECT_EQ(plan->cases[0].dist, Dist::uniform);
  EXPECT_EQ(plan->cases[1].seed, 9u);
  EXPECT_EQ(plan->cases[1].dist, Dist::gpumode);
  EXPECT_EQ(plan->cases[1].shape.groups.size(), 2u);
  EXPECT_FALSE(plan->cases[1].b200_target_us);
  EXPECT_EQ(plan->cases[2].role, "test");  // default role
  EXPECT_EQ(plan->variants, (std::vector<std::string>{"naive", "cublaslt"}));
  EXPECT_EQ(plan->tolerance.rtol, 0.002);
  EXPECT_EQ(plan->tolerance.atol, 0.003);
  EXPECT_EQ(plan->timing.l2, L2Mode::warm);
  EXPECT_EQ(plan->timing.warmup, 1);
  EXPECT_EQ(plan->timing.min_samples, 3);
  EXPECT_EQ(plan->timing.max_samples, 30);
  EXPECT_EQ(plan->timing.min_time_s, 0.05);
  EXPECT_EQ(plan->timing.max_time_s, 0.25);
  EXPECT_EQ(plan->timing.target_rse, 0.01);

  // Flags override the config; --role and --problem filter its cases.
  const auto over = parse({"--config", path, "--seed", "5", "--dist", "gpumode", "--variant", "naive", "--rtol",
                           "0.5", "--max-samples", "4", "--l2", "cold"});
  ASSERT_TRUE(over);
  for (const CaseSpec& c : over->cases) {
    EXPECT_EQ(c.seed, 5u);
    EXPECT_EQ(c.dist, Dist::gpumode);
  }
  EXPECT_EQ(over->variants, std::vector<std::string>{"naive"});
  EXPECT_EQ(over->tolerance.rtol, 0.5);
  EXPECT_EQ(over->tolerance.atol, 0.003);
  EXPECT_EQ(over->timing.max_samples, 4);
  EXPECT_EQ(over->timing.l2, L2Mode::cold);

  const auto bench = parse({"--config", path, "--role", "benchmark"});
  ASSERT_EQ(bench->cases.size(), 1u);
  EXPECT_EQ(bench->cases[0].problem, Problem::gemv);
  const auto tests = parse({"--config", path, "--role", "test", "--problem", "gemm"});
  ASSERT_EQ(tests->cases.size(), 1u);
  EXPECT_EQ(tests->cases[0].problem, Problem::gemm);
  EXPECT_HAS(usage_error({"--config", path, "--problem", "dual_gemm"}), "no case matches --problem dual_gemm");

  // --shape replaces the config's cases but keeps the SOL target of the same shape.
  const auto shaped = parse({"--config", path, "--problem", "gemv", "--shape", "7168x16384x1", "--shape", "128x256x1"});
  ASSERT_EQ(shaped->cases.size(), 2u);
  EXPECT_EQ(shaped->cases[0].b200_target_us, 8.622);
  EXPECT_EQ(shaped->cases[0].seed, 7u);
  EXPECT_FALSE(shaped->cases[1].b200_target_us);
}

TEST_F(PlanTest, SettingsOnlyConfigWithShape) {
  const std::string path = config(R"({"timing": {"max_samples": 5}})");
  const auto plan = parse({"--config", path, "--problem", "gemm", "--shape", "128x256x256"});
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->timing.max_samples, 5);
  EXPECT_EQ(plan->timing.min_samples, 5);  // the default (10) yields to the explicit maximum
  const auto more = parse({"--problem", "gemm", "--shape", "128x256x256", "--min-samples", "2000", "--max-time", "0.01"});
  EXPECT_EQ(more->timing.max_samples, 2000);
  EXPECT_EQ(more->timing.min_time_s, 0.01);
  EXPECT_HAS(usage_error({"--config", path}), "cases: missing");
}

TEST_F(PlanTest, MalformedJson) {
  const std::string path = config("{\n  \"seed\": 1111,\n  \"cases\": [\n}\n");
  const std::string msg = usage_error({"--config", path});
  EXPECT_HAS(msg, path + ": malformed JSON");
  EXPECT_HAS(msg, "line 4");
}

TEST_F(PlanTest, MissingConfigFile) {
  EXPECT_HAS(usage_error({"--config", m_dir + "/absent.json"}), m_dir + "/absent.json: file does not exist");
}

TEST_F(PlanTest, UnknownKeys) {
  std::string p = config(R"({"seed": 1, "seeds": 2, "cases": [{"problem": "gemm", "shape": "128x256x256"}]})");
  EXPECT_HAS(usage_error({"--config", p}), p + ": seeds: unknown key");
  EXPECT_HAS(usage_error({"--config", case_config(R"("problem": "gemm", "shape": "128x256x256", "m": 3)")}),
             "cases[1].m: unknown key");
  p = config(R"({"timing": {"warmups": 3}, "cases": [{"problem": "gemm", "shape": "128x256x256"}]})");
  EXPECT_HAS(usage_error({"--config", p}), "timing.warmups: unknown key");
  p = config(R"({"tolerance": {"rtol": 0, "eps": 1}, "cases": [{"problem": "gemm", "shape": "128x256x256"}]})");
  EXPECT_HAS(usage_error({"--config", p}), "tolerance.eps: unknown key");
}

TEST_F(PlanTest, DuplicateKey) {
  const std::string p =
      config(R"({"cases": [{"problem": "gemm", "shape": "128x256x256"}, {"problem": "gemm", "shape": "1x2x3", "shape": "128x256x256"}]})");
  EXPECT_HAS(usage_error({"--config", p}), p + ": cases[1].shape: duplicate key");
}

TEST_F(PlanTest, BadCaseFields) {
  auto err = [&](const std::string& fields) { return usage_error({"--config", case_config(fields)}); };
  EXPECT_HAS(err(R"("problem": "gemx", "shape": "128x256x256")"), "cases[1].problem: 'gemx': unknown problem");
  EXPECT_HAS(err(R"("shape": "128x256x256")"), "cases[1].problem: missing");
  EXPECT_HAS(err(R"("problem": "gemm")"), "cases[1].shape: missing");
  EXPECT_HAS(err(R"("problem": "gemm", "shape": "128x0x256")"),
             "cases[1].shape: '128x0x256': every dimension must be positive");
  EXPECT_HAS(err(R"("problem": "gemm", "shape": "128x-1x256")"), "cases[1].shape: '128x-1x256'");
  EXPECT_HAS(err(R"("problem": "gemm", "shape": "128xfoox256")"),
             "cases[1].shape: '128xfoox256': 'foo' is not a whole number");
  EXPECT_HAS(err(R"("problem": "gemm", "shape": "128x256x128")"),
             "cases[1].shape: '128x256x128': K must be a multiple of 256");
  EXPECT_HAS(err(R"("problem": "gemv", "shape": "128x256")"), "cases[1].shape: '128x256': expected MxKxL");
  EXPECT_HAS(err(R"("problem": "gemm", "shape": 128)"), "cases[1].shape: 128: must be a string");
  EXPECT_HAS(err(R"("problem": "gemm", "shape": "128x256x256", "role": "bench")"), "cases[1].role: 'bench'");
  EXPECT_HAS(err(R"("problem": "gemm", "shape": "128x256x256", "b200_target_us": -1)"),
             "cases[1].b200_target_us: -1: must be > 0");
  EXPECT_HAS(err(R"("problem": "gemm", "shape": "128x256x256", "seed": -3)"), "cases[1].seed: -3");
  EXPECT_HAS(err(R"("problem": "gemm", "shape": "128x256x256", "dist": "normal")"), "cases[1].dist: 'normal'");
  EXPECT_HAS(usage_error({"--config", config(R"({"cases": [3]})")}), "cases[0]: 3: must be a JSON object");
  EXPECT_HAS(usage_error({"--config", config(R"({"cases": []})")}), "cases: []: must list at least one case");
}

TEST_F(PlanTest, BadTopLevelFields) {
  auto err = [&](const std::string& top) { return usage_error({"--config", case_config(R"("problem": "gemv", "shape": "128x256x1")", top + ",")}); };
  EXPECT_HAS(err(R"("schema": "nvfp4bench.config/2")"), "schema: 'nvfp4bench.config/2': expected 'nvfp4bench.config/1'");
  EXPECT_HAS(err(R"("seed": -1)"), "seed: -1: must be an integer >= 0");
  EXPECT_HAS(err(R"("seed": 1.5)"), "seed: 1.5: must be an integer >= 0");
  EXPECT_HAS(err(R"("seed": "1111")"), "seed: '1111': must be an integer >= 0");
  EXPECT_HAS(err(R"("dist": "normal")"), "dist: 'normal': unknown distribution");
  EXPECT_HAS(err(R"("variants": ["naive", "fast"])"), "variants[1]: 'fast': unknown variant (known: naive,");
  EXPECT_HAS(err(R"("variants": "naive")"), "variants: 'naive': must be an array");
  EXPECT_HAS(err(R"("variants": [])"), "variants: []: must name at least one variant");
  EXPECT_HAS(err(R"("tolerance": {"rtol": -0.001})"), "tolerance.rtol: -0.001: must be >= 0");
  EXPECT_HAS(err(R"("tolerance": {"atol": "small"})"), "tolerance.atol: 'small': must be a number");
  EXPECT_HAS(err(R"("tolerance": 0.1)"), "tolerance: 0.1: must be a JSON object");
  EXPECT_HAS(err(R"("timing": {"l2": "hot"})"), "timing.l2: 'hot'");
  EXPECT_HAS(err(R"("timing": {"warmup": -1})"), "timing.warmup: -1: must be an integer >= 0");
  EXPECT_HAS(err(R"("timing": {"min_samples": 0})"), "timing.min_samples: 0: must be an integer >= 1");
  EXPECT_HAS(err(R"("timing": {"max_samples": 2.5})"), "timing.max_samples: 2.5");
  EXPECT_HAS(err(R"("timing": {"max_samples": 1e12})"), "timing.max_samples");
  EXPECT_HAS(err(R"("timing": {"min_time_s": 0})"), "timing.min_time_s: 0: must be > 0");
  EXPECT_HAS(err(R"("timing": {"max_time_s": -2})"), "timing.max_time_s: -2: must be > 0");
  EXPECT_HAS(err(R"("timing": {"target_rse": -0.1})"), "timing.target_rse: -0.1: must be >= 0");
  const std::string minmax = err(R"("timing": {"min_samples": 50, "max_samples": 10})");
  EXPECT_HAS(minmax, "timing.min_samples 50: min_samples must be <= max_samples (10,");
  EXPECT_HAS(minmax, "timing.max_samples");
  EXPECT_HAS(err(R"("timing": {"min_time_s": 3, "max_time_s": 1})"), "timing.min_time_s 3");
  EXPECT_HAS(usage_error({"--config", config("[1, 2]")}), "(top level): [1,2]: must be a JSON object");
}

TEST_F(PlanTest, MinMaxAcrossConfigAndFlags) {
  const std::string p = case_config(R"("problem": "gemv", "shape": "128x256x1")", R"("timing": {"max_samples": 10},)");
  EXPECT_HAS(usage_error({"--config", p, "--min-samples", "20"}),
             "--min-samples 20: min_samples must be <= max_samples (10, from " + p + ": timing.max_samples)");
  EXPECT_TRUE(parse({"--config", p, "--min-samples", "20", "--max-samples", "30"}));
}

// Every committed config parses, and each case obeys its problem's rules.
TEST(Configs, EveryCommittedConfigParses) {
  const fs::path root = fs::path(NVFP4_SOURCE_DIR) / "configs";
  ASSERT_TRUE(fs::is_directory(root)) << root;
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    SCOPED_TRACE(entry.path().string());
    std::optional<RunPlan> plan;
    try {
      plan = parse({"--config", entry.path().string()});
    } catch (const std::exception& e) {
      FAIL() << e.what();
    }
    ASSERT_TRUE(plan);
    EXPECT_FALSE(plan->cases.empty());
    for (const CaseSpec& c : plan->cases) {
      EXPECT_TRUE(c.role == "test" || c.role == "benchmark");
      if (c.role == "benchmark" && entry.path().parent_path().filename() == "gpumode") {
        EXPECT_TRUE(c.b200_target_us) << format_shape(c.problem, c.shape);
      }
    }
  }
  EXPECT_GE(files, 6);
}

}  // namespace
}  // namespace nvfp4

// ---- the timer: explicit choices are recorded; without one, app/main.cpp picks (issue 9) ----

TEST(PlanTimer, DefaultLeavesTheChoiceToTheRun) {
  const char* argv[] = {"nvfp4bench", "--problem", "gemm", "--shape", "128x256x256"};
  const auto plan = nvfp4::parse_command_line(5, argv);
  ASSERT_TRUE(plan);
  EXPECT_FALSE(plan->timer_explicit);
  EXPECT_TRUE(plan->timer_reason.empty());
}

TEST(PlanTimer, FlagIsExplicit) {
  const char* argv[] = {"nvfp4bench", "--problem", "gemm", "--shape", "128x256x256", "--timer", "events",
                        "--batch", "50"};
  const auto plan = nvfp4::parse_command_line(9, argv);
  ASSERT_TRUE(plan);
  EXPECT_TRUE(plan->timer_explicit);
  EXPECT_EQ(plan->timing.timer, nvfp4::TimerKind::events);
  EXPECT_EQ(plan->timer_reason, "--timer events");
  EXPECT_EQ(plan->timing.batch, 50);
}

