// SPDX-License-Identifier: Apache-2.0
// stream_k_test.cpp: the stream-K split (kernels/common/stream_k.hpp) that the `persistent` GEMM
// kernels run, enumerated on the host for every CTA: every K step of every tile is run exactly
// once, each split tile has exactly one owner that adds exactly the partial sums of the CTAs that
// hold its other runs, no CTA writes more than one partial, segments and roles derived from the
// cursor after a main loop (the kernels' form) agree with the enumeration, and the table lookup of
// grouped launches.
#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "../../kernels/common/stream_k.hpp"

namespace nvfp4::gemm {
namespace {

// A launch's tiles as the table the grouped kernels read: per GEMM, its first tile and step and
// its K steps per tile (the fields span_in_table uses).
struct Entry {
  int first_tile = 0, first_step = 0, k_steps = 1;
};
struct Launch {
  std::vector<Entry> entries;
  int tiles = 0, steps = 0;
  explicit Launch(const std::vector<std::pair<int, int>>& gemms) {  // (tiles, K steps per tile)
    for (const auto& [tiles_g, k_steps] : gemms) {
      entries.push_back(Entry{tiles, steps, k_steps});
      tiles += tiles_g;
      steps += tiles_g * k_steps;
    }
  }
  TileSpan span(int it) const { return span_in_table(entries.data(), static_cast<int>(entries.size()), it); }
};

struct Seen {
  int cta;
  Segment seg;
  bool first, last;  // the CTA's first / last segment
};

// Every CTA's segments, checking what holds per CTA on the way.
std::vector<Seen> enumerate(const Launch& l, int ctas, const std::string& what) {
  const StreamK sk(l.steps, ctas);
  std::vector<Seen> all;
  int total = 0;
  for (int b = 0; b < ctas; ++b) {
    int it = sk.begin(b);
    const int end = sk.begin(b + 1);
    EXPECT_TRUE(end - it == l.steps / ctas || end - it == l.steps / ctas + 1) << what << " cta " << b;
    total += end - it;
    Segment s;
    std::vector<Seen> mine;
    while (next_segment(sk, b, it, end, [&](int i) { return l.span(i); }, s)) {
      // The kernels' form, from the cursor after the segment and the tile's span alone.
      const Segment again = segment_before(sk, b, it, l.span(it - 1));
      EXPECT_EQ(again.span.tile, s.span.tile) << what << " cta " << b;
      EXPECT_EQ(again.k_begin, s.k_begin) << what << " cta " << b;
      EXPECT_EQ(again.k_end, s.k_end) << what << " cta " << b;
      EXPECT_EQ(static_cast<int>(again.role), static_cast<int>(s.role)) << what << " cta " << b;
      if (s.role == SegmentRole::kOwner) {
        EXPECT_EQ(again.peer_end, s.peer_end) << what << " cta " << b;
      }
      mine.push_back(Seen{b, s, mine.empty(), false});
    }
    if (!mine.empty()) mine.back().last = true;
    int partials = 0;
    for (const Seen& x : mine) {
      if (x.seg.role == SegmentRole::kPartial) {
        ++partials;
        EXPECT_TRUE(x.first) << what << ": a partial that is not cta " << b << "'s first segment";
      }
      if (x.seg.role == SegmentRole::kOwner) {
        EXPECT_TRUE(x.last) << what << ": cta " << b << " owns mid-run";
      }
    }
    EXPECT_LE(partials, 1) << what << " cta " << b;
    all.insert(all.end(), mine.begin(), mine.end());
  }
  EXPECT_EQ(total, l.steps) << what;
  return all;
}

void check(const Launch& l, int ctas) {
  const std::string what = std::to_string(l.tiles) + " tiles, " + std::to_string(l.steps) + " steps, " +
                           std::to_string(ctas) + " CTAs";
  const std::vector<Seen> all = enumerate(l, ctas, what);
  std::map<int, std::vector<const Seen*>> by_tile;
  for (const Seen& x : all) by_tile[x.seg.span.tile].push_back(&x);
  ASSERT_EQ(static_cast<int>(by_tile.size()), l.tiles) << what;
  for (const auto& [tile, segs] : by_tile) {
    // The segments tile K steps [0, steps) exactly, in CTA order.
    int k = 0;
    for (const Seen* x : segs) {
      EXPECT_EQ(x->seg.k_begin, k) << what << " tile " << tile;
      EXPECT_LT(x->seg.k_begin, x->seg.k_end) << what << " tile " << tile;
      k = x->seg.k_end;
    }
    EXPECT_EQ(k, segs.front()->seg.span.steps) << what << " tile " << tile;
    if (segs.size() == 1) {
      EXPECT_EQ(segs[0]->seg.role, SegmentRole::kWhole) << what << " tile " << tile;
      continue;
    }
    // One owner, the first; the others are partials of exactly the CTAs (owner, peer_end).
    const Seen& owner = *segs.front();
    ASSERT_EQ(owner.seg.role, SegmentRole::kOwner) << what << " tile " << tile;
    std::set<int> peers, expected;
    for (size_t i = 1; i < segs.size(); ++i) {
      EXPECT_EQ(segs[i]->seg.role, SegmentRole::kPartial) << what << " tile " << tile;
      EXPECT_GT(segs[i]->cta, owner.cta) << what << " tile " << tile;  // an owner waits only on later CTAs
      peers.insert(segs[i]->cta);
    }
    for (int c = owner.cta + 1; c < owner.seg.peer_end; ++c) expected.insert(c);
    EXPECT_EQ(peers, expected) << what << " tile " << tile;
  }
}

TEST(StreamK, EveryStepOnceOneOwnerPerSplitTile) {
  // The gemm / dual_gemm benchmark launches on 132 SMs (tiles x K steps of 64) and small ones.
  for (const auto& [tiles, k_steps] : std::vector<std::pair<int, int>>{
           {56, 256}, {56, 32}, {32, 112}, {128, 112}, {48, 64}, {1, 4}, {3, 5}, {200, 7}, {7, 1000}})
    for (int ctas : {1, 2, 7, 64, 131, 132, 264})
      if (ctas <= tiles * k_steps) check(Launch({{tiles, k_steps}}), ctas);
}

TEST(StreamK, GroupsOfDifferentK) {
  // group_gemm: G = 8, N = 4096, K = 7168 (token tiles 1 or 2 per group) and groups of different K.
  const Launch g8({{32, 112}, {64, 112}, {32, 112}, {32, 112}, {32, 112}, {64, 112}, {32, 112}, {64, 112}});
  for (int ctas : {1, 100, 132, 133}) check(g8, ctas);
  const Launch mixed({{3, 12}, {1, 4}, {5, 100}, {2, 1}, {9, 33}});
  for (int ctas : {1, 2, 3, 10, 17, 50, 100}) check(mixed, ctas);
}

TEST(StreamK, TableLookup) {
  const Launch l({{2, 3}, {1, 10}, {3, 2}});  // tiles 0-1 (3 steps), 2 (10), 3-5 (2)
  const int expect_tile[] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 4, 4, 5, 5};
  ASSERT_EQ(l.steps, 22);
  for (int it = 0; it < l.steps; ++it) {
    const TileSpan s = l.span(it);
    EXPECT_EQ(s.tile, expect_tile[it]) << "iteration " << it;
    EXPECT_LE(s.first, it);
    EXPECT_LT(it, s.first + s.steps);
    EXPECT_EQ(s.group, s.tile < 2 ? 0 : s.tile < 3 ? 1 : 2) << "iteration " << it;
  }
}

TEST(StreamK, Balance) {
  // W = q P + r: r CTAs run q + 1 steps, the rest q, whatever the tile count.
  const StreamK sk(14336, 132);  // gemm 128x7168x16384, 2 x 128 tiles
  int longer = 0;
  for (int b = 0; b < 132; ++b) longer += sk.begin(b + 1) - sk.begin(b) == 109;
  EXPECT_EQ(sk.begin(132), 14336);
  EXPECT_EQ(longer, 14336 % 132);
}

TEST(StreamK, CostIsTheBusiestCta) {
  const Launch l({{56, 256}});
  const StreamK sk(l.steps, 132);
  const auto span = [&](int i) { return l.span(i); };
  EXPECT_DOUBLE_EQ(stream_k_cost(sk, span, 0.0, 0.0), 109.0);
  // A 256-step tile over runs of 108-109 spans up to four CTAs (its owner's last step or so, two
  // whole runs, the start of a fourth): an owner adds up to three partials, a CTA writes at most
  // one; the busiest CTA costs its run plus those.
  const double with = stream_k_cost(sk, span, 3.0, 1.0);
  EXPECT_GT(with, 109.0 + 3.0);
  EXPECT_LE(with, 109.0 + 3 * 3.0 + 1.0);
}

}  // namespace
}  // namespace nvfp4::gemm
