// SPDX-License-Identifier: Apache-2.0
// wide_tokens_test.cpp: the two phases in which group_gemm's 2 x 256 `persistent` kernel decodes
// its tokens (kernels/common/wide_tokens.hpp): wide_phases' tables and wide_place cover every K
// chunk of every live row of every GEMM exactly once, phase 0 holding each row's first `early`
// chunks (all of them where a row has fewer) and phase 1 the rest, for any number of GEMMs, rows
// and chunks per row, and bad tables are refused.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "../../kernels/common/wide_tokens.hpp"

namespace nvfp4::gemm {
namespace {

// Every chunk of both phases placed, each (GEMM, row, chunk) seen once, in the phase it belongs to.
void expect_cover(const std::vector<int64_t>& rows, const std::vector<int>& per_row, int early) {
  SCOPED_TRACE(::testing::Message() << rows.size() << " GEMMs, early " << early);
  TokenPhase phase[2][kMaxWideFuseGroups];
  int chunks[2] = {};
  const int groups = static_cast<int>(rows.size());
  wide_phases(groups, rows.data(), per_row.data(), early, phase, chunks);
  std::vector<std::vector<int>> seen(groups);
  int64_t expected[2] = {0, 0};
  for (int g = 0; g < groups; ++g) {
    seen[g].assign(static_cast<size_t>(rows[g] * per_row[g]), 0);
    const int e = std::min(early, per_row[g]);
    expected[0] += rows[g] * e;
    expected[1] += rows[g] * (per_row[g] - e);
  }
  ASSERT_EQ(chunks[0], expected[0]);
  ASSERT_EQ(chunks[1], expected[1]);
  for (int p = 0; p < 2; ++p)
    for (int v = 0; v < chunks[p]; ++v) {
      const WidePlace at = p == 0 ? wide_place<0>(phase, groups, v) : wide_place<1>(phase, groups, v);
      ASSERT_GE(at.g, 0);
      ASSERT_LT(at.g, groups);
      ASSERT_GE(at.row, 0);
      ASSERT_LT(at.row, rows[at.g]) << "phase " << p << " chunk " << v;
      ASSERT_GE(at.ch, 0);
      ASSERT_LT(at.ch, per_row[at.g]);
      ASSERT_EQ(at.ch < std::min(early, per_row[at.g]), p == 0) << "phase " << p << " chunk " << v;
      ASSERT_EQ(seen[at.g][static_cast<size_t>(at.row * per_row[at.g] + at.ch)]++, 0)
          << "GEMM " << at.g << " row " << at.row << " chunk " << at.ch << " placed twice";
    }
  for (int g = 0; g < groups; ++g)
    for (size_t i = 0; i < seen[g].size(); ++i) ASSERT_EQ(seen[g][i], 1) << "GEMM " << g << " chunk " << i;
}

TEST(WideTokens, TheBenchmarkCasesAreCoveredOnce) {
  // G=8 N=4096 K=7168 (112 chunks per row) and G=8 N=7168 K=2048 (32), phase 0 of 0, 2 and 4 K steps.
  for (int early : {0, 2, 4}) {
    expect_cover({80, 176, 128, 72, 64, 248, 96, 160}, std::vector<int>(8, 112), early);
    expect_cover({40, 76, 168, 72, 164, 148, 196, 160}, std::vector<int>(8, 32), early);
  }
}

TEST(WideTokens, OddShapesAreCoveredOnce) {
  expect_cover({1}, {1}, 4);                          // one row of one chunk: all in phase 0
  expect_cover({1, 300, 7}, {4, 3, 16}, 4);           // rows with fewer chunks than phase 0 holds
  expect_cover({256, 1, 129, 2}, {12, 16, 4, 8}, 0);  // one phase
  std::mt19937 rng(123);
  for (int trial = 0; trial < 200; ++trial) {
    const int groups = 1 + static_cast<int>(rng() % kMaxWideFuseGroups);
    std::vector<int64_t> rows;
    std::vector<int> per_row;
    for (int g = 0; g < groups; ++g) {
      rows.push_back(1 + static_cast<int64_t>(rng() % 300));  // live rows over batches
      per_row.push_back(1 + static_cast<int>(rng() % 40));
    }
    expect_cover(rows, per_row, static_cast<int>(rng() % 5));
  }
}

TEST(WideTokens, RefusesWhatTheKernelCannotTake) {
  TokenPhase phase[2][kMaxWideFuseGroups];
  int chunks[2] = {};
  const std::vector<int64_t> nine_rows(9, 8);
  const std::vector<int> nine_chunks(9, 4);
  EXPECT_THROW(wide_phases(9, nine_rows.data(), nine_chunks.data(), 4, phase, chunks), std::logic_error);
  EXPECT_THROW(wide_phases(0, nine_rows.data(), nine_chunks.data(), 4, phase, chunks), std::logic_error);
  const int64_t huge[1] = {int64_t{1} << 26};
  const int many[1] = {64};  // 2^32 chunks: past what an int numbers
  EXPECT_THROW(wide_phases(1, huge, many, 0, phase, chunks), std::logic_error);
}

}  // namespace
}  // namespace nvfp4::gemm
