// SPDX-License-Identifier: Apache-2.0
// tile_rows_test.cpp: group_gemm's balanced token tiles (kernels/common/tile_rows.hpp): the
// benchmark's G=2 cases, and for every M up to 4096 that the tiles are as many as 128-row tiles,
// cover M, leave the last one non-empty, are multiples of 16 no taller than 128, and run on a wgmma
// at least as wide as their live tokens and no wider than the next width up.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "../../kernels/common/tile_rows.hpp"

namespace nvfp4::gemm {
namespace {

TEST(TileRows, BenchmarkGroups) {
  EXPECT_EQ(balanced_tile_rows(192, 128), 96);   // 96 + 96
  EXPECT_EQ(balanced_tile_rows(320, 128), 112);  // 112 + 112 + 96
  EXPECT_EQ(balanced_tile_rows(128, 128), 128);
  EXPECT_EQ(balanced_tile_rows(384, 128), 128);
  EXPECT_EQ(balanced_tile_rows(200, 128), 112);  // 112 + 88
  EXPECT_EQ(balanced_tile_rows(1, 128), 16);
  EXPECT_EQ(narrow_width_bal(96), 96);
  EXPECT_EQ(narrow_width_bal(97), 112);
  EXPECT_EQ(narrow_width_bal(112), 112);
  EXPECT_EQ(narrow_width_bal(113), 128);
  EXPECT_EQ(narrow_width_bal(1), 64);
}

TEST(TileRows, EveryM) {
  for (int64_t m = 1; m <= 4096; ++m) {
    const int rows = balanced_tile_rows(m, 128);
    const int64_t tiles = (m + 127) / 128;
    ASSERT_EQ(rows % 16, 0) << m;
    ASSERT_LE(rows, 128) << m;
    ASSERT_GE(tiles * rows, m) << m;        // the tiles cover M
    ASSERT_LT((tiles - 1) * rows, m) << m;  // the last one holds tokens
    for (int64_t t = 0; t < tiles; ++t) {
      const int live = static_cast<int>(std::min<int64_t>(rows, m - t * rows));
      const int w = narrow_width_bal(live);
      ASSERT_TRUE(w == 64 || w == 96 || w == 112 || w == 128) << m;
      const int below = w == 64 ? 0 : w == 96 ? 64 : w == 112 ? 96 : 112;  // the next width down
      ASSERT_GE(w, live) << m << " tile " << t;
      ASSERT_GT(live, below) << m << " tile " << t;
    }
  }
}

}  // namespace
}  // namespace nvfp4::gemm
