// SPDX-License-Identifier: Apache-2.0
// wide_tokens.hpp: the two phases in which group_gemm's 2 x 256 `persistent` kernel decodes its
// tokens itself (docs/perf-notes.md P123; gemm_tokens.cuh WideTokens, WideShare): phase 0 is the
// first `early` K chunks of every live token row of every GEMM, phase 1 the rest of each row. A
// phase's chunks are numbered over its GEMMs in order, row by row: chunk v of phase P lies in GEMM
// g where phase[P][g].start <= v < phase[P][g + 1].start, at live row local / per_row (over
// batches) and K chunk first_ch + local % per_row, local = v - start. Host and device; the host
// builds the tables (wide_phases), the kernel's consumers place their chunks (wide_place), and a
// host test checks that the two phases cover every chunk of every live row exactly once.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "divisor.hpp"

namespace nvfp4::gemm {

inline constexpr int kMaxWideFuseGroups = 8;

struct TokenPhase {
  int start = 0;
  Divisor per_row = 1;  // the phase's chunks per row (>= 1 wherever the GEMM has chunks in it)
  int first_ch = 0;
};

// The phases of `groups` GEMMs, GEMM g with rows[g] live token rows (over batches) of
// chunks_per_row[g] chunks each: phase[p][g], and each phase's chunks in `chunks`.
inline void wide_phases(int groups, const int64_t* rows, const int* chunks_per_row, int early,
                        TokenPhase (&phase)[2][kMaxWideFuseGroups], int (&chunks)[2]) {
  if (groups < 1 || groups > kMaxWideFuseGroups) throw std::logic_error("wide fused tokens: 1 to 8 GEMMs");
  int64_t n[2] = {0, 0};
  for (int g = 0; g < groups; ++g) {
    const int e = std::min(early, chunks_per_row[g]);
    const int per[2] = {e, chunks_per_row[g] - e};
    for (int p = 0; p < 2; ++p) {
      phase[p][g] = TokenPhase{static_cast<int>(n[p]), std::max(per[p], 1), p == 0 ? 0 : e};
      n[p] += rows[g] * per[p];
      if (n[p] >= (int64_t{1} << 31)) throw std::logic_error("wide fused tokens: 2^31 chunks or more");
    }
  }
  chunks[0] = static_cast<int>(n[0]);
  chunks[1] = static_cast<int>(n[1]);
}

// Chunk v of phase P (v below the phase's chunks): its GEMM, live row and K chunk. The GEMM is
// found by compares against the phase's starts, with P a constant, so that a kernel reading the
// table from its parameters indexes it by constants (docs/perf-notes.md P118).
struct WidePlace {
  int g = 0, row = 0, ch = 0;
};
template <int P>
NVFP4_HD WidePlace wide_place(const TokenPhase (&phase)[2][kMaxWideFuseGroups], int groups, int v) {
  WidePlace at;
#ifdef __CUDACC__
#pragma unroll
#endif
  for (int x = 1; x < kMaxWideFuseGroups; ++x)
    if (x < groups && v >= phase[P][x].start) at.g = x;
  const TokenPhase& ph = phase[P][at.g];
  const int local = v - ph.start;
  at.row = ph.per_row.div(local);
  at.ch = local - at.row * static_cast<int>(ph.per_row) + ph.first_ch;
  return at;
}

}  // namespace nvfp4::gemm
