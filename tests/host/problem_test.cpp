// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include "core/problem.hpp"

using namespace nvfp4;

TEST(Problem, NamesRoundTrip) {
  for (Problem p : kAllProblems) EXPECT_EQ(parse_problem(to_string(p)), p);
  EXPECT_FALSE(parse_problem("gemmm"));
}

TEST(Shape, ParsesEachProblemsForm) {
  EXPECT_EQ(parse_shape(Problem::gemv, "7168x16384x1").groups[0], (Dims{7168, 1, 16384, 1}));
  EXPECT_EQ(parse_shape(Problem::gemm, "128x7168x16384").groups[0], (Dims{128, 7168, 16384, 1}));
  EXPECT_EQ(parse_shape(Problem::dual_gemm, "256x4096x7168x2").groups[0], (Dims{256, 4096, 7168, 2}));
  const Shape g = parse_shape(Problem::group_gemm, "80x4096x7168,176x4096x7168");
  ASSERT_EQ(g.groups.size(), 2u);
  EXPECT_EQ(g.groups[1], (Dims{176, 4096, 7168, 1}));
}

TEST(Shape, FormatIsTheInverseOfParse) {
  for (auto [p, text] : {std::pair{Problem::gemv, "4096x7168x8"}, {Problem::gemm, "128x4096x7168"},
                         {Problem::gemm, "128x256x256x3"}, {Problem::group_gemm, "40x512x256,56x384x256"}})
    EXPECT_EQ(format_shape(p, parse_shape(p, text)), text);
}

TEST(Shape, RejectsBadText) {
  for (auto [p, text] : {std::pair{Problem::gemm, "128x0x256"}, {Problem::gemm, "128x-4x256"},
                         {Problem::gemm, "128xabcx256"}, {Problem::gemm, "128x256"}, {Problem::gemv, "128x256"},
                         {Problem::gemm, "128x256x100"}, {Problem::gemv, "128x96x1"}, {Problem::gemm, ""},
                         {Problem::group_gemm, "128x256x256x2"}, {Problem::gemm, "128x256x256x"},
                         {Problem::gemm, "99999999999999999999x1x256"}})
    EXPECT_THROW(parse_shape(p, text), ShapeError) << text;
}

TEST(Shape, ErrorNamesTheRule) {
  try {
    parse_shape(Problem::gemm, "128x256x100");
    FAIL();
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("multiple of 256"), std::string::npos) << e.what();
  }
}

TEST(WorkCounts, MatchPublishedSolBytes) {
  // PROBLEMS.md section 5: gemm 128x7168x16384 moves 69.07 MB; gemv 7168x16384x1 66.08 MB.
  EXPECT_NEAR(byte_count(Problem::gemm, parse_shape(Problem::gemm, "128x7168x16384")) / 1e6, 69.07, 0.01);
  EXPECT_NEAR(byte_count(Problem::gemv, parse_shape(Problem::gemv, "7168x16384x1")) / 1e6, 66.08, 0.01);
  EXPECT_NEAR(byte_count(Problem::dual_gemm, parse_shape(Problem::dual_gemm, "512x4096x7168")) / 1e6, 39.29, 0.01);
  EXPECT_NEAR(flop_count(Problem::dual_gemm, parse_shape(Problem::dual_gemm, "512x4096x7168")), 6.013e10, 1e8);
}
