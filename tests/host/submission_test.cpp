// SPDX-License-Identifier: Apache-2.0
// --submission without a GPU: the load errors are one UsageError line naming the file and the
// rule; no Python makes the variants load with their SKIP reason; the report records
// submissions. (Running them is a GPU test: gpu/submission_test.cpp; the no-torch path is in
// cli/cli_test.sh, which can give the binary its own PYTHONPATH.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "cli/plan.hpp"
#include "core/scoped_env.hpp"
#include "report/report.hpp"
#include "report/report_read.hpp"
#include "run/submission.hpp"

using namespace nvfp4;

namespace {

std::string fixture(const std::string& name) { return std::string(NVFP4_SOURCE_DIR) + "/tests/submissions/" + name; }

std::string load_error(const std::vector<std::string>& specs, const std::vector<PluginRecord>& plugins = {}) {
  try {
    load_submissions(specs, std::nullopt, 0, plugins);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Submission, MissingFile) {
  const std::string err = load_error({"/no/such/submission.py"});
  EXPECT_EQ(err, "--submission '/no/such/submission.py': no such file");
}

TEST(Submission, NameClash) {
  const std::string err = load_error({fixture("raises.py"), "gemm=" + fixture("raises.py")});
  EXPECT_NE(err.find("--submission 'gemm=" + fixture("raises.py") + "': name clash: py:raises is already"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  const std::string plugin = load_error({fixture("raises.py")}, {PluginRecord{"py", "/x/py.so", 1, {}}});
  EXPECT_NE(plugin.find("--plugin '/x/py.so': name clash"), std::string::npos) << plugin;
}

TEST(Submission, NoPythonMeansSkip) {
  const ScopedEnv path("PATH", "/nonexistent");
  const LoadedSubmissions s = load_submissions({"dual_gemm=" + fixture("raises.py")}, std::nullopt, 0, {});
  ASSERT_EQ(s.variants.size(), 1u);  // PROBLEM= limits it to one problem
  EXPECT_EQ(s.variants[0]->name, "py:raises");
  EXPECT_EQ(s.variants[0]->problem, Problem::dual_gemm);
  DeviceInfo dev;
  const std::string why = s.variants[0]->unsupported(dev, parse_shape(Problem::dual_gemm, "256x512x256"));
  EXPECT_NE(why.find("no Python: python3 is not on PATH"), std::string::npos) << why;
  ASSERT_EQ(s.records.size(), 1u);
  EXPECT_EQ(s.records[0].skip, why);
  EXPECT_EQ(s.records[0].problems, std::vector<std::string>{"dual_gemm"});
}

TEST(Submission, BadSourceIsAUsageError) {
  if (std::system("python3 -c pass >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3 here to read the files";
  EXPECT_EQ(load_error({fixture("no_kernel.py")}),
            "--submission '" + fixture("no_kernel.py") + "': defines no custom_kernel(data) at the top level");
  EXPECT_NE(load_error({fixture("syntax_error.py")}).find("line 4: SyntaxError"), std::string::npos);
}

TEST(Submission, ReportRecordsSubmissions) {
  RunInfo info;
  info.submissions.push_back({"py:sub", "/x/sub.py", "3.12.3 /usr/bin/python3", "2.11.0", "", {"gemm", "dual_gemm"}});
  const std::string text = json_report_text(info, {});
  const ReportFile back = parse_json_report(text, "mem.json");
  ASSERT_EQ(back.info.submissions.size(), 1u);
  const SubmissionRecord& r = back.info.submissions[0];
  EXPECT_EQ(r.name, "py:sub");
  EXPECT_EQ(r.path, "/x/sub.py");
  EXPECT_EQ(r.python, "3.12.3 /usr/bin/python3");
  EXPECT_EQ(r.torch, "2.11.0");
  EXPECT_EQ(r.problems, (std::vector<std::string>{"gemm", "dual_gemm"}));
  EXPECT_EQ(json_report_text(RunInfo{}, {}).find("\"submissions\""), std::string::npos);
}
