// SPDX-License-Identifier: Apache-2.0
// progress_test.cpp: the progress line of a sweep (src/run/progress.hpp) with a fake clock:
// redrawn in place on a terminal, occasional plain lines otherwise, warnings on their own line
// and never lost, nothing but warnings when hidden (--quiet).
#include <gtest/gtest.h>

#include <sstream>

#include "run/progress.hpp"

namespace nvfp4 {
namespace {

struct FakeClock {
  double t = 100.0;
  std::function<double()> fn() {
    return [this] { return t; };
  }
};

TEST(Progress, ClockText) {
  EXPECT_EQ(Progress::clock_text(0), "0:00");
  EXPECT_EQ(Progress::clock_text(65.4), "1:05");
  EXPECT_EQ(Progress::clock_text(3600 * 12 + 7), "12:00:07");
  EXPECT_EQ(Progress::clock_text(-3), "0:00");
}

TEST(Progress, LineHasStepProblemShapeVariantElapsedAndEstimate) {
  FakeClock clock;
  std::ostringstream os;
  Progress p(os, 4, true, false, 100, clock.fn());
  EXPECT_EQ(p.line_text(0, "gemm", "128x7168x16384", "naive"), "[1/4] gemm 128x7168x16384 naive  elapsed 0:00  left ?");
  clock.t += 10;  // two steps in 10 s: two more take about 10 s
  EXPECT_EQ(p.line_text(2, "gemv", "7168x16384x1", "cublaslt"), "[3/4] gemv 7168x16384x1 cublaslt  elapsed 0:10  left ~0:10");
  const std::string group = "80x4096x7168,176x4096x7168,128x4096x7168,72x4096x7168";
  EXPECT_NE(p.line_text(1, "group_gemm", group, "naive").find("80x4096x7168,...(4 groups)"), std::string::npos);
}

TEST(Progress, PlainLinesAreOccasional) {
  FakeClock clock;
  std::ostringstream os;
  {
    Progress p(os, 10, true, false, 100, clock.fn());
    p.step(0, "gemm", "a", "naive");  // printed: the first
    clock.t += 3;
    p.step(1, "gemm", "a", "cublaslt");  // within 10 s: not printed
    p.warn("SKIP: gemm a vectorized: needs sm_100");
    clock.t += Progress::kPlainEverySeconds;
    p.step(2, "gemm", "b", "naive");  // printed
  }
  const std::string s = os.str();
  EXPECT_EQ(s.find('\r'), std::string::npos) << "no in-place redraws outside a terminal";
  EXPECT_EQ(s.find("\033["), std::string::npos);
  EXPECT_NE(s.find("[1/10] gemm a naive"), std::string::npos);
  EXPECT_EQ(s.find("[2/10]"), std::string::npos);
  EXPECT_NE(s.find("[3/10] gemm b naive"), std::string::npos);
  EXPECT_NE(s.find("SKIP: gemm a vectorized: needs sm_100\n"), std::string::npos);
}

TEST(Progress, TerminalRedrawsInPlaceAndWarningsSurvive) {
  FakeClock clock;
  std::ostringstream os;
  {
    Progress p(os, 2, true, true, 60, clock.fn());
    p.step(0, "gemm", "a", "naive");
    p.warn("warning: throttled");
    p.step(1, "gemm", "a", "cublaslt");
  }
  const std::string s = os.str();
  // Drawn, cleared for the warning, the warning on its own line, redrawn, next step, cleared at the end.
  EXPECT_EQ(s, "\r\033[K[1/2] gemm a naive  elapsed 0:00  left ?"
               "\r\033[Kwarning: throttled\n[1/2] gemm a naive  elapsed 0:00  left ?"
               "\r\033[K[2/2] gemm a cublaslt  elapsed 0:00  left ~0:00"
               "\r\033[K");
}

TEST(Progress, TerminalLineIsCutToTheWidth) {
  FakeClock clock;
  std::ostringstream os;
  Progress p(os, 2, true, true, 20, clock.fn());
  p.step(0, "dual_gemm", "256x4096x7168", "tensor-core");
  const std::string s = os.str();
  EXPECT_EQ(s.size(), std::string("\r\033[K").size() + 19);
}

TEST(Progress, HiddenShowsOnlyWarnings) {
  FakeClock clock;
  std::ostringstream os;
  {
    Progress p(os, 3, false, true, 80, clock.fn());
    p.step(0, "gemm", "a", "naive");
    p.warn("FAIL: gemm a naive: 3 of 10 elements mismatch");
    p.step(1, "gemm", "a", "cublaslt");
  }
  EXPECT_EQ(os.str(), "FAIL: gemm a naive: 3 of 10 elements mismatch\n");
}

}  // namespace
}  // namespace nvfp4
