// SPDX-License-Identifier: Apache-2.0
// tile_rows.hpp: group_gemm's token tiles of balanced heights (`persistent`, decoder-CTA launches
// at narrow 112; docs/perf-notes.md P218-P219), host and device (tests/host/tile_rows_test.cpp).
//
// A GEMM of m tokens keeps as many tiles as tiles of `tokens` rows would take, but each except the
// last is the least multiple of 16 rows that covers m in that many (192: 96 + 96; 320: 112 + 112 +
// 96), and each runs its K loop on the narrowest wgmma its live tokens fit (narrow_width_bal): a
// unit's K step grows with the wgmma's width (n64 0.261, n96 0.284, n128 0.315 us on an H200, P218).
#pragma once

#include <cstdint>

#include "core/nvfp4.hpp"

namespace nvfp4::gemm {

// The height of each of a GEMM's tiles but the last (GemmEntry::tile_rows).
NVFP4_HD int balanced_tile_rows(int64_t m, int tokens) {
  const int64_t tiles = (m + tokens - 1) / tokens;
  return static_cast<int>(((m + tiles - 1) / tiles + 15) / 16 * 16);
}

// The wgmma width of a balanced 128-token tile with `live` tokens: 64, 96, 112 or 128.
NVFP4_HD int narrow_width_bal(int live) { return live <= 64 ? 64 : live <= 96 ? 96 : live <= 112 ? 112 : 128; }

}  // namespace nvfp4::gemm
