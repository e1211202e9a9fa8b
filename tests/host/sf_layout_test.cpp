// SPDX-License-Identifier: Apache-2.0
// The blocked scale layout against PROBLEMS.md section 1.3, built independently by simulating
// gpu-mode's construction: a contiguous tensor of shape (L, rest_mn, rest_k, 32, 4, 4) viewed as
// permute(3,4,1,5,2,0) and scattered with reordered[i%32, (i%128)//32, i//128, j%4, j//4, b].
#include <gtest/gtest.h>

#include <set>

#include "core/nvfp4.hpp"

using namespace nvfp4;

namespace {

// Storage offset of logical index (a0..a5) of the permuted view. The contiguous tensor has shape
// (L, R, C, 32, 4, 4) with strides (R*C*512, C*512, 512, 16, 4, 1); permute(3,4,1,5,2,0) makes
// logical dim d equal to physical dim perm[d].
int64_t permuted_offset(int64_t R, int64_t C, const int64_t idx[6]) {
  const int64_t phys_strides[6] = {R * C * 512, C * 512, 512, 16, 4, 1};
  const int perm[6] = {3, 4, 1, 5, 2, 0};
  int64_t off = 0;
  for (int d = 0; d < 6; ++d) off += idx[d] * phys_strides[perm[d]];
  return off;
}

}  // namespace

TEST(SfLayout, MatchesGpuModePermuteSimulation) {
  for (const auto [rows, sf_cols, batches] : {std::tuple<int64_t, int64_t, int64_t>{128, 4, 1}, {256, 16, 2},
                                              {200, 12, 3}, {7168, 1024, 1}, {1, 4, 1}, {129, 8, 2}}) {
    const SfGeometry g{rows, sf_cols, batches};
    for (int64_t b = 0; b < batches; ++b)
      for (int64_t i = 0; i < rows; i += (rows > 300 ? 37 : 1))
        for (int64_t j = 0; j < sf_cols; j += (sf_cols > 64 ? 13 : 1)) {
          const int64_t idx[6] = {i % 32, (i % 128) / 32, i / 128, j % 4, j / 4, b};
          ASSERT_EQ(g.blocked_offset(i, j, b), permuted_offset(g.row_blocks(), g.col_blocks(), idx))
              << rows << "x" << sf_cols << " i=" << i << " j=" << j << " b=" << b;
        }
  }
}

TEST(SfLayout, IsABijectionOntoTheBlockedBuffer) {
  const SfGeometry g{256, 8, 2};  // exact multiples: every byte is a real scale
  std::set<int64_t> seen;
  for (int64_t b = 0; b < g.batches; ++b)
    for (int64_t i = 0; i < g.rows; ++i)
      for (int64_t j = 0; j < g.sf_cols; ++j) {
        const int64_t off = g.blocked_offset(i, j, b);
        ASSERT_GE(off, 0);
        ASSERT_LT(off, g.blocked_bytes());
        ASSERT_TRUE(seen.insert(off).second) << "offset " << off << " hit twice";
      }
  EXPECT_EQ(static_cast<int64_t>(seen.size()), g.blocked_bytes());
}

TEST(SfLayout, HandCheckedCorners) {
  const SfGeometry g{256, 8, 2};  // rest_mn = 2, rest_k = 2, 2048 bytes per batch
  EXPECT_EQ(g.blocked_bytes_per_batch(), 2048);
  EXPECT_EQ(g.blocked_offset(0, 0, 0), 0);
  EXPECT_EQ(g.blocked_offset(0, 1, 0), 1);     // j % 4 is the fastest
  EXPECT_EQ(g.blocked_offset(32, 0, 0), 4);    // (i % 128) / 32 next
  EXPECT_EQ(g.blocked_offset(1, 0, 0), 16);    // i % 32 strides 16
  EXPECT_EQ(g.blocked_offset(0, 4, 0), 512);   // next K atom
  EXPECT_EQ(g.blocked_offset(128, 0, 0), 1024);  // next row block after all K atoms
  EXPECT_EQ(g.blocked_offset(0, 0, 1), 2048);  // next batch
  EXPECT_EQ(g.blocked_offset(255, 7, 1), 2048 + 1024 + 512 + 31 * 16 + 3 * 4 + 3);
  EXPECT_EQ(g.rowmajor_offset(3, 5, 1), (1 * 256 + 3) * 8 + 5);
}

TEST(SfLayout, PaddingForPartialAtoms) {
  const SfGeometry g{129, 5, 1};  // 2 row blocks, 2 column blocks
  EXPECT_EQ(g.row_blocks(), 2);
  EXPECT_EQ(g.col_blocks(), 2);
  EXPECT_EQ(g.blocked_bytes(), 4 * 512);
  EXPECT_EQ(g.rowmajor_bytes(), 129 * 5);
}
