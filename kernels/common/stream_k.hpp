// SPDX-License-Identifier: Apache-2.0
// stream_k.hpp: the stream-K split of a launch's work over its CTAs, host and device (the host
// tests enumerate it: tests/host/stream_k_test.cpp).
//
// The K steps ("iterations") of all output tiles of a launch lie end to end in the scheduler's tile
// order: tile t holds iterations [first(t), first(t) + steps(t)), W in all. CTA b of P takes the
// run [begin(b), begin(b + 1)) of floor(W / P) or that plus one, so every CTA does the same number
// of K steps (within one) whatever the tile count, and walks its run as segments, one per tile it touches:
//   kWhole    the whole tile: its epilogue;
//   kPartial  a run that does not start its tile. Only a CTA's first segment can be one: the CTA
//             stores its accumulators to its workspace slot and raises its flag;
//   kOwner    starts its tile but does not finish it. Only a CTA's last segment can be one: the CTA
//             waits for the flags of CTAs (b, peer_end), which run the rest of the tile as their
//             first segments (so they finished it long before), adds their partial sums in CTA
//             order (the same sums whichever CTA finishes first) and stores the tile.
// A CTA raises its flag before it could wait on anything, and an owner waits only on CTAs after
// it, so a launch whose P CTAs are all resident at once cannot deadlock. Each CTA writes at most
// one partial, so the workspace is one slot per CTA, and the owner clears each flag it consumed:
// nothing is reset between launches (a CUDA graph replays the same launch).
#pragma once

#include <cstdint>

#include "core/nvfp4.hpp"
#include "divisor.hpp"

namespace nvfp4::gemm {

// Data-parallel split-K (no stream-K): split `split` of a tile's `k_steps` K steps, of `splits`,
// starts at this K step and runs to the next split's start. The kernels' schedulers, the host's
// cost model and the pre-pass's L2 warm-up (prefetch_plan.hpp) all cut K here.
// `splits` an int (the host) or a Divisor (the kernels: no division instruction sequence).
template <class D>
NVFP4_HD int split_k_begin(int k_steps, int split, const D& splits) { return quotient(k_steps * split, splits); }
// The K steps of split `split`: from its start to the next one's.
template <class D>
NVFP4_HD int split_k_steps(int k_steps, int split, const D& splits) {
  return split_k_begin(k_steps, split + 1, splits) - split_k_begin(k_steps, split, splits);
}

// A tile's place in the iteration space: its index in the launch (and the GEMM it belongs to, for
// grouped launches) and its iterations [first, first + steps).
struct TileSpan {
  int group = 0, tile = 0;
  int first = 0, steps = 1;
};

enum class SegmentRole : int { kWhole = 0, kPartial = 1, kOwner = 2 };

struct Segment {
  TileSpan span;
  int k_begin = 0, k_end = 0;  // K steps of the tile this segment runs
  SegmentRole role = SegmentRole::kWhole;
  int peer_end = 0;  // kOwner: CTAs (this one, peer_end) hold the rest of the tile as partials
};

// W iterations over P CTAs (W < 2^31: the host plans stream-K only then); ctas == 0: not
// stream-K. With W = q P + r, the first r CTAs take q + 1 iterations, the others q: begin(b) =
// b q + min(b, r), with no division on the device (a 64-bit one cost the producer warp, at 56
// registers, spills; a 32-bit one kept the consumers' ring state out of the uniform registers).
struct StreamK {
  int total = 0, ctas = 0;
  int q = 0, r = 0;
  StreamK() = default;
  StreamK(int total_, int ctas_) : total(total_), ctas(ctas_), q(total_ / ctas_), r(total_ % ctas_) {}
  NVFP4_HD int begin(int cta) const { return cta * q + (cta < r ? cta : r); }
};

// The role of CTA `cta`'s segment of K steps [k_begin, k_end) of a tile of `steps`, the CTA's cursor
// being at `it_after` (the iteration after the segment); peer_end as in Segment. (The kernels call
// this after a segment's main loop rather than keep its result in registers through it.)
NVFP4_HD SegmentRole segment_role(const StreamK& sk, int cta, int k_begin, int k_end, int steps, int it_after,
                                  int& peer_end) {
  peer_end = cta + 1;
  if (k_begin != 0) return SegmentRole::kPartial;
  if (k_end == steps) return SegmentRole::kWhole;
  const int tile_end = it_after + (steps - k_end);
  while (peer_end < sk.ctas && sk.begin(peer_end) < tile_end) ++peer_end;
  return SegmentRole::kOwner;
}

// The segment CTA `cta` has just run, with its role, from its cursor `it_after` and the span of
// the segment's tile alone (the segment starts at the later of the tile's first iteration and the
// CTA's): the kernels' form, which keeps nothing extra through the main loop.
NVFP4_HD Segment segment_before(const StreamK& sk, int cta, int it_after, const TileSpan& span) {
  Segment s;
  s.span = span;
  const int run_begin = sk.begin(cta);
  s.k_begin = (span.first > run_begin ? span.first : run_begin) - span.first;
  s.k_end = it_after - span.first;
  s.role = segment_role(sk, cta, s.k_begin, s.k_end, span.steps, it_after, s.peer_end);
  return s;
}

// The next segment of CTA `cta`, whose cursor `it` starts at sk.begin(cta) and whose run ends at
// `end` (sk.begin(cta + 1)): its tile and K range (not its role: next_segment); false when the run
// is done. span_of(i) is the TileSpan holding iteration i.
template <class SpanOf>
NVFP4_HD bool next_range(int& it, int end, const SpanOf& span_of, Segment& s) {
  if (it >= end) return false;
  s.span = span_of(it);
  const int tile_end = s.span.first + s.span.steps;
  const int seg_end = end < tile_end ? end : tile_end;
  s.k_begin = it - s.span.first;
  s.k_end = seg_end - s.span.first;
  it = seg_end;
  return true;
}
// The same with the segment's role and peers.
template <class SpanOf>
NVFP4_HD bool next_segment(const StreamK& sk, int cta, int& it, int end, const SpanOf& span_of, Segment& s) {
  if (!next_range(it, end, span_of, s)) return false;
  s.role = segment_role(sk, cta, s.k_begin, s.k_end, s.span.steps, it, s.peer_end);
  return true;
}

// The TileSpan of iteration `it` in a table of `groups` GEMMs (ascending first_step; Entry has
// first_step, first_tile and k_steps): a scan, G being small.
template <class Entry>
NVFP4_HD TileSpan span_in_table(const Entry* entries, int groups, int it) {
  int g = 0;
  while (g + 1 < groups && entries[g + 1].first_step <= it) ++g;
  const Entry& e = entries[g];
  const int local = quotient(it - e.first_step, e.k_steps);
  return TileSpan{g, e.first_tile + local, e.first_step + local * e.k_steps, e.k_steps};
}

// What one launch costs a CTA, for the cost model: the most K steps any CTA runs (its own run
// plus `peer_steps` per partial it adds and `store_steps` for a partial it writes), over all CTAs.
template <class SpanOf>
double stream_k_cost(const StreamK& sk, const SpanOf& span_of, double peer_steps, double store_steps) {
  double worst = 0;
  for (int b = 0; b < sk.ctas; ++b) {
    int it = sk.begin(b);
    const int end = sk.begin(b + 1);
    double cost = end - it;
    Segment s;
    while (next_segment(sk, b, it, end, span_of, s)) {
      if (s.role == SegmentRole::kPartial) cost += store_steps;
      if (s.role == SegmentRole::kOwner) cost += peer_steps * (s.peer_end - b - 1);
    }
    worst = cost > worst ? cost : worst;
  }
  return worst;
}

}  // namespace nvfp4::gemm
