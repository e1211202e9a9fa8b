// SPDX-License-Identifier: Apache-2.0
// gemm_common.cuh: the device pieces every GEMM-family variant is built from (gemm, dual_gemm,
// group_gemm):
//   - GemmArgs: one GEMM of the case as raw pointers (A tokens, B/B2 weights, C);
//   - weight slots: how a CTA's weight rows map to B rows (gemm) or to B1/B2 rows (dual_gemm);
//   - cp.async helpers;
//   - tile schedulers: block index -> (GEMM, batch, token tile, weight tile, K range), for one
//     GEMM (SingleScheduler) or a device table of groups (GroupScheduler);
//   - split-K reduction: the splits of a tile form a cluster and sum their accumulators through
//     distributed shared memory in rank order;
//   - epilogues: FP16 store (gemm) and silu(x1)*x2 in FP32 with one rounding (dual_gemm).
// The host side (launch plans, cluster launches, split choice): gemm_launch.cuh.
//
// Naming: the MMA's M side holds WEIGHT rows (B, N of them), its N side TOKENS (A, M of them): the
// small-M shapes (M = 128..512 tokens against N = 3072..7168 weights) then fill whole MMA tiles.
// C[l][m][n] is written transposed from the accumulator tiles.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "core/case_data.hpp"
#include "core/hopper.cuh"
#include "core/nvfp4.hpp"
#include "reference/dequant.cuh"
#include "balance.hpp"
#include "stream_k.hpp"

namespace nvfp4::gemm {

// Probe builds only (NVFP4_TRACE): NVFP4_STAMP_TO(buf, i) writes %globaltimer to buf[i] where a
// runner set buf (the trace stamps of gemm_wgmma.cuh and gemm_mma.cuh); push_reduce2's three points
// per CTA (thread tid 0: the peer's ring free, this rank's half pushed, the peer's half received)
// go to g_push_trace[CTA * 3 + k] (`tensor-core`'s runner sets it).
#if NVFP4_TRACE
// A predicated store rather than a branch on buf: a divergent branch there took the K loops' ring
// addresses out of the uniform datapath in gemm's and dual_gemm's trace builds (117-119 -> 125-127
// SASS lines a step, docs/perf-notes.md P209).
#define NVFP4_STAMP_TO(buf, i)                                                                      \
  do {                                                                                              \
    const unsigned long long a_ = reinterpret_cast<unsigned long long>(buf);                        \
    unsigned long long t_;                                                                          \
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t_));                                          \
    asm volatile("{\n.reg .pred q;\nsetp.ne.u64 q, %2, 0;\n@q st.global.u64 [%0], %1;\n}\n" ::"l"( \
                     a_ + 8ull * static_cast<unsigned long long>(i)),                               \
                 "l"(t_), "l"(a_)                                                                   \
                 : "memory");                                                                       \
  } while (0)
__device__ unsigned long long* g_push_trace;
// Host: `buf` (n stamps, allocated and zeroed on first use) becomes the value of the kernels'
// stamp pointer `sym` for the next launch on `stream`.
template <class Symbol, class Buffer>
inline void arm_trace(Buffer& buf, size_t n, const Symbol& sym, cudaStream_t stream) {
  if (buf.get() == nullptr) {
    buf = Buffer(n * sizeof(unsigned long long));
    CUDA_CHECK(cudaMemsetAsync(buf.get(), 0, buf.bytes(), stream));
  }
  unsigned long long* const p = buf.template get<unsigned long long>();
  CUDA_CHECK(cudaMemcpyToSymbolAsync(sym, &p, sizeof p, 0, cudaMemcpyHostToDevice, stream));
}
// Host: appends the last launch's stamps to $NVFP4_TRACE_OUT (unset: nothing), a line per CTA:
// "plan|" and the CTA's `slots` stamps of `buf`, then (with `extra`) its `extra_slots` of that (ns).
template <class Buffer>
inline void append_trace(const std::string& plan, const Buffer& buf, int slots, const Buffer* extra = nullptr,
                         int extra_slots = 0) {
  const char* path = std::getenv("NVFP4_TRACE_OUT");
  if (path == nullptr || buf.get() == nullptr) return;
  const size_t ctas = buf.bytes() / sizeof(unsigned long long) / slots;
  const int xs = extra != nullptr ? extra_slots : 0;
  std::vector<unsigned long long> v(ctas * slots), x(ctas * xs);
  if (cudaMemcpy(v.data(), buf.get(), v.size() * sizeof v[0], cudaMemcpyDeviceToHost) != cudaSuccess) return;
  if (extra != nullptr && cudaMemcpy(x.data(), extra->get(), x.size() * sizeof x[0], cudaMemcpyDeviceToHost) != cudaSuccess)
    return;
  FILE* f = std::fopen(path, "a");
  if (f == nullptr) return;
  for (size_t b = 0; b < ctas; ++b) {
    std::fprintf(f, "%s|", plan.c_str());
    for (int k = 0; k < slots; ++k) std::fprintf(f, "%s%llu", k ? "," : "", v[b * slots + k]);
    for (int k = 0; k < xs; ++k) std::fprintf(f, ",%llu", x[b * xs + k]);
    std::fprintf(f, "\n");
  }
  std::fclose(f);
}
#define NVFP4_PUSH_STAMP(k)                                      \
  do {                                                           \
    if (tid == 0) NVFP4_STAMP_TO(g_push_trace, blockIdx.x * 3 + (k)); \
  } while (0)
#else
#define NVFP4_PUSH_STAMP(k) ((void)0)
#endif

// ---- problem ----

struct GemmArgs {
  const uint8_t* a = nullptr;       // tokens  [l][m][k/2]
  const uint8_t* sfa = nullptr;     // [l][m][k/16] row-major
  const uint8_t* b[2] = {};         // weights [l][n][k/2]; b[1] = B2 for dual_gemm
  const uint8_t* sfb[2] = {};       // row-major [l][n][k/16]
  const uint8_t* sfb_blk[2] = {};   // blocked (PROBLEMS.md 1.3)
  __half* c = nullptr;              // [l][m][n]
  int64_t m = 0, n = 0, k = 0, l = 1;
};

inline GemmArgs make_args(const GemmOperands& g, int nb) {
  GemmArgs p;
  p.a = g.a.data;
  p.sfa = g.a.sf;
  p.b[0] = g.b.data;
  p.sfb[0] = g.b.sf;
  p.sfb_blk[0] = g.b.sf_blocked;
  if (nb == 2) {
    p.b[1] = g.b2.data;
    p.sfb[1] = g.b2.sf;
    p.sfb_blk[1] = g.b2.sf_blocked;
  }
  p.c = g.c;
  p.m = g.dims.m;
  p.n = g.dims.n;
  p.k = g.dims.k;
  p.l = g.dims.l;
  return p;
}

// ---- weight slots ----
// A CTA holds kSlots weight rows. gemm (NB = 1): slot s is B row n0 + s. dual_gemm (NB = 2):
// slots come in runs of `Run`: run 2r is B1 rows n0 + r*Run + [0, Run), run 2r+1 the same rows of
// B2, so one thread's B1 and B2 accumulators hold the same output column. Output columns per CTA:
// kSlots / NB.
template <int NB, int Run>
struct SlotMap {
  __device__ __forceinline__ static int op(int s) { return NB == 1 ? 0 : (s / Run) & 1; }
  __device__ __forceinline__ static int row(int s) { return NB == 1 ? s : (s / (2 * Run)) * Run + s % Run; }
  // Select between the two operands without indexing a parameter array at run time (which would
  // copy the array to local memory).
  template <class T>
  __device__ __forceinline__ static T pick(int s, T b0, T b1) { return op(s) ? b1 : b0; }
};


// ---- cp.async ----

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void cp_async16(void* dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_u32(dst)), "l"(src));
}
__device__ __forceinline__ void cp_async4(void* dst, const void* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem_u32(dst)), "l"(src));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N));
}

// ---- scheduling ----
// The tile scheduler interface, implemented by SingleScheduler (one GEMM, batched over L) and
// GroupScheduler (group_gemm: G GEMMs in one launch):
//   int64_t blocks() const;                        (host) CTAs to launch
//   __device__ Tile at(int block) const;           which tile and K range a CTA computes
//   __device__ const GemmEntry& entry(int g) const; the GEMM a tile belongs to
// Inside one GEMM, tiles run over (batch, weight tile, token tile), each K range cut into `splits`
// nearly equal runs of K steps. Block order: split fastest (the splits of one tile are consecutive
// blocks: one thread-block cluster, see splitk_reduce), then token tile (CTAs next to each other
// share a weight tile in L2), then weight tile, then batch, then GEMM.

// 32-bit fields: unsupported() keeps M, N, L and the tile count below 2^31.
struct Tile {
  int group;                     // which GEMM of the launch
  int l, m0, n0;                 // batch, first token, first output column
  int k_step_begin, k_step_end;  // in units of the kernel's K step
};

// K elements per chunk of the token pre-pass (gemm_tokens.cuh; the main loops' K step).
inline constexpr int kTokenChunk = 64;

// One GEMM's share of a launch.
struct GemmEntry {
  GemmArgs args;
  Divisor tiles_t = 1, tiles_n = 1;  // token and weight tiles per batch
  Divisor k_steps = 1;               // K / the kernel's K step
  int first_tile = 0;            // tiles of the GEMMs before this one
  int first_step = 0;            // stream-K: K steps of the GEMMs before this one (stream_k.hpp)
  // group_gemm: the token rows of each of its tiles but the last (a multiple of 16, at most the
  // launch's ts.tokens): tile i starts at row i x tile_rows (balanced_tile_rows, P219); in the
  // padding before tok_offset, so that the entry's size and every other field's place stay as they were.
  int tile_rows = 128;
  int64_t tok_offset = 0;        // tensor-core: first element of this GEMM's decoded tokens
  Divisor m_pad = 1;             // tensor-core: token rows per batch in that workspace
  Divisor tok_chunks = 1;        // the token pre-pass: kTokenChunk-element chunks per token row
};

// issuers (`persistent`): how many producer threads issue a K step's copies (1: one thread all;
// 2: tokens | weights and scale atoms; 3: tokens | weights | scale atoms). push (`persistent`,
// `tensor-core`): a 2-rank split-K reduction pushes the partial sums to the peer (push_reduce2).
struct TileShape {
  int tokens = 128, cols = 128;
  Divisor splits = 1;
  int issuers = 1;
  // 2 ranks in a cluster: pushed (push_reduce2) rather than pulled; `persistent` gemm's split-K
  // through L2 (no cluster per tile): 4 ranks in pairs through clusters of 2 first (pair_split_reduce).
  bool push = false;
  bool rows = false;  // `tensor-core` gemm, group_gemm: 3 or more ranks (2 where not pushed) reduce by output rows (sum_rows_out)
};

// Tile `local_tile` of GEMM `group`, K steps [k_begin, k_end); its first token at a multiple of
// `rows` (ts.tokens, or group_gemm's GemmEntry::tile_rows).
__device__ __forceinline__ Tile tile_range(const GemmEntry& e, int group, int local_tile, int k_begin, int k_end,
                                           const TileShape& ts, int rows) {
  Tile t;
  t.group = group;
  const int rest = e.tiles_t.div(local_tile);
  const int tt = local_tile - rest * e.tiles_t;
  t.l = e.tiles_n.div(rest);
  t.m0 = tt * rows;
  t.n0 = (rest - t.l * e.tiles_n) * ts.cols;
  t.k_step_begin = k_begin;
  t.k_step_end = k_end;
  return t;
}
// Split `split` of tile `tile` (its index in the launch) of GEMM `group`, as a Segment.
__device__ __forceinline__ Segment split_unit(const GemmEntry& e, int group, int tile, int split, const TileShape& ts) {
  Segment s;
  s.span = TileSpan{group, tile, 0, e.k_steps};
  s.k_begin = split_k_begin(e.k_steps, split, ts.splits);
  s.k_end = split_k_begin(e.k_steps, split + 1, ts.splits);
  return s;
}

// Stream-K (stream_k.hpp) adds to the interface:
//   __device__ TileSpan span(int it) const;        the tile holding K-step iteration `it`
//   __device__ Segment unit(int block) const;      at()'s tile and K range, as a Segment
//   __device__ Tile tile_at(const Segment&) const;  a segment's tile and K range
struct SingleScheduler {
  GemmEntry e;  // in the kernel's parameters
  TileShape ts;
  int64_t blocks() const { return int64_t{e.tiles_t} * e.tiles_n * e.args.l * ts.splits; }
  __device__ Tile at(int block) const { return tile_at(unit(block)); }
  __device__ const GemmEntry& entry(int) const { return e; }
  __device__ TileSpan span(int it) const {
    const int tile = e.k_steps.div(it);
    return TileSpan{0, tile, tile * e.k_steps, e.k_steps};
  }
  __device__ Segment unit(int block) const {
    const int tile = ts.splits.div(block);
    return split_unit(e, 0, tile, block - tile * ts.splits, ts);
  }
  __device__ Tile tile_at(const Segment& s) const {
    return tile_range(e, 0, s.span.tile, s.k_begin, s.k_end, ts, ts.tokens);
  }
};

// G GEMMs: a table of entries, a CTA finds its GEMM by a scan of the first tiles (G is small), or
// from its balanced order's entry (balance.hpp order_codes). The table is `Table`: a device
// pointer (built in prepare; the scan's loads stay in L1), or, in `persistent`'s fused and
// decoder-CTA kernels (at most kHeldGroups GEMMs), a HeldRef to the entries in the kernel's
// parameters, so that a CTA's first unit needs no load from global memory (docs/perf-notes.md
// P118). The fields other than the table are GroupFields, so one scheduler converts to the other
// (on()). (GroupTable first: the device-table scheduler keeps the layout it had.)
inline constexpr int kHeldGroups = 4;
struct HeldEntries {
  GemmEntry e[kHeldGroups];
};
// A HeldEntries that is a __grid_constant__ kernel parameter, read in place (indexed constant
// loads; a run-time index into a parameter that is not __grid_constant__ copies it to local memory).
struct HeldRef {
  const HeldEntries* p = nullptr;
  __device__ const GemmEntry& operator[](int g) const { return p->e[g]; }
};
struct GroupFields {
  int groups = 0;
  int64_t total_tiles = 0;
  TileShape ts;
  bool role_loops = false;  // `persistent`, 3 issuers: each role in a loop of its own (P39)
  // `persistent` (128-token tiles): the narrowest wgmma N a tile whose live tokens fit may take
  // (64 or 96; 0: every tile the full 128, docs/perf-notes.md P62).
  int narrow = 0;
  // Data-parallel `persistent` launches whose units differ in cost: the unit in `order[i]` runs
  // where unit i would (balance.hpp; device, one int per slot of the padded stride form: -1 past a
  // CTA's last unit, else the unit with its group, balance.hpp order_code, so that next_work
  // needs no scan of the table), or nullptr for units in their own order.
  const int* order = nullptr;
};
template <class Table>
struct GroupTable {
  Table entries{};  // `groups` entries, ascending first_tile
};
template <class Table>
struct GroupSchedulerOf : GroupTable<Table>, GroupFields {
  using GroupTable<Table>::entries;
  int64_t blocks() const { return total_tiles * ts.splits; }
  // The same scheduler over another copy of the table.
  template <class Other>
  NVFP4_HD GroupSchedulerOf<Other> on(const Other& table) const {
    GroupSchedulerOf<Other> s;
    static_cast<GroupFields&>(s) = *this;
    s.entries = table;
    return s;
  }
  __device__ Tile at(int block) const { return tile_at(unit(block)); }
  __device__ const GemmEntry& entry(int g) const { return entries[g]; }
  __device__ TileSpan span(int it) const { return span_in_table(&entries[0], groups, it); }
  // Slot i's code: its unit (order: with the group), or -1 (next_work stops there).
  __device__ int slot(int i) const { return order != nullptr ? __ldg(order + i) : i; }
  // Slot i's order entry into L1 ahead of its next_work (the consumers, during the epilogue before
  // it: the load of a slot's entry was most of the ~1 us from one unit to the next, P82).
  __device__ void prefetch_slot(int i) const {
    if (order != nullptr) asm volatile("prefetch.global.L1 [%0];" ::"l"(order + i));
  }
  __device__ Segment unit_of_slot(int code) const {
    if (order == nullptr) return unit_of(code);
    return split_of(order_group(code), order_unit(code));
  }
  __device__ Segment unit(int i) const { return unit_of_slot(slot(i)); }
  __device__ Segment unit_of(int block) const {
    const int tile = ts.splits.div(block);
    int g = 0;
    while (g + 1 < groups && entries[g + 1].first_tile <= tile) ++g;
    return split_of(g, block);
  }
  // A cut unit's part (balance.hpp part_code, docs/perf-notes.md P125): the unit's K range,
  // narrowed to the writer's [0, cut) or the adder's [cut, steps).
  __device__ Segment part_of(int code) const {
    Segment s = split_of(part_group(code), part_unit(code));
    (part_writer(code) ? s.k_end : s.k_begin) = part_cut(code);
    return s;
  }
  // Unit `block` of the launch, in group g: its tile and (split) K range.
  __device__ Segment split_of(int g, int block) const {
    const int tile = ts.splits.div(block);
    return split_unit(entries[g], g, tile, block - tile * ts.splits, ts);
  }
  __device__ Tile tile_at(const Segment& s) const {
    const GemmEntry& e = entries[s.span.group];
    return tile_range(e, s.span.group, s.span.tile - e.first_tile, s.k_begin, s.k_end, ts, ts.tokens);
  }
  // The same, its tiles GemmEntry::tile_rows apart (balanced heights, P219: only the kernels that
  // run such plans call it; reading the height in the others changed their K loops' schedule).
  __device__ Tile tile_rows_at(const Segment& s) const {
    const GemmEntry& e = entries[s.span.group];
    return tile_range(e, s.span.group, s.span.tile - e.first_tile, s.k_begin, s.k_end, ts, e.tile_rows);
  }
};
using GroupScheduler = GroupSchedulerOf<const GemmEntry*>;
// Whether a scheduler type is a GroupSchedulerOf.
template <class S>
inline constexpr bool kGroupSched = false;
template <class T>
inline constexpr bool kGroupSched<GroupSchedulerOf<T>> = true;

// ---- a persistent CTA's work ----
// Either data-parallel (units = tiles x splits; CTA b takes units b, b + grid, ...; the splits of
// a tile are one cluster, see splitk_reduce) or stream-K (sk.ctas CTAs, each one run of K steps,
// stream_k.hpp): the partial sums of a tile's later runs go through a global workspace, one slot
// of `slot_floats` per CTA, and a flag per CTA (zero between launches).
struct WorkPlan {
  int units = 0;
  StreamK sk;
  float* partials = nullptr;
  unsigned* flags = nullptr;
  int slot_floats = 0;  // data-parallel split-K through L2 (global_split_reduce): `partials` holds a
                        // slot per unit, then a 64-bit count per tile
};

// The CTA's place in its work: the next unit (data-parallel) or K-step iteration (stream-K). The
// end of the CTA's work is derived from the launch's parameters when needed, not kept in a register
// (the 3 x 128 wgmma consumers have none to spare).
struct WorkCursor {
  int it;
};
__device__ __forceinline__ WorkCursor work_start(const WorkPlan& wp) {
  const int b = static_cast<int>(blockIdx.x);
  return WorkCursor{wp.sk.ctas == 0 ? b : wp.sk.begin(b)};
}
__device__ __forceinline__ int work_end(const WorkPlan& wp) {
  return wp.sk.ctas == 0 ? wp.units : wp.sk.begin(static_cast<int>(blockIdx.x) + 1);
}
// The CTA's next tile; false when the CTA is done. Both ways end in one Segment (group, tile, K
// range) and one sched.tile_at (with a tile_at per way, ptxas kept the consumers' ring addresses
// out of the uniform registers: 8 more instructions per K step). kParts: the order may hold cut
// units' parts (codes below -1, P125; only the kernels that run such plans test for them). kRows:
// group_gemm's tiles of balanced heights (tile_rows_at, P219).
template <bool kParts = false, bool kRows = false, class Sched>
__device__ __forceinline__ bool next_work(const Sched& sched, const WorkPlan& wp, WorkCursor& c, Tile& tile) {
  Segment seg;
  const int end = work_end(wp);
  if (c.it >= end) return false;
  if (wp.sk.ctas == 0) {
    if constexpr (kGroupSched<Sched>) {
      const int code = sched.slot(c.it);
      // -1: past this CTA's last unit (balance.hpp's padded stride form)
      if (code == -1 || (!kParts && code < 0)) return false;
      if constexpr (kParts)
        seg = is_part(code) ? sched.part_of(code) : sched.unit_of_slot(code);
      else
        seg = sched.unit_of_slot(code);
    } else {
      seg = sched.unit(c.it);
    }
    c.it += static_cast<int>(gridDim.x);
  } else {
    next_range(c.it, end, [&](int i) { return sched.span(i); }, seg);
  }
  if constexpr (kRows)
    tile = sched.tile_rows_at(seg);
  else
    tile = sched.tile_at(seg);
  return true;
}
// What the CTA does with the tile it has just run (next_work's last): kWhole (data-parallel:
// always; a split tile's cluster reduces it, splitk_reduce), or stream-K's kPartial / kOwner
// (peer_end as in Segment), from the cursor alone (stream_k.hpp segment_before), so nothing extra
// is live through the main loop.
template <class Sched>
__device__ __forceinline__ SegmentRole work_role(const Sched& sched, const WorkPlan& wp, const WorkCursor& c,
                                                 int& peer_end) {
  if (wp.sk.ctas == 0) return SegmentRole::kWhole;
  const Segment s = segment_before(wp.sk, static_cast<int>(blockIdx.x), c.it, sched.span(c.it - 1));
  peer_end = s.peer_end;
  return s.role;
}

// The tile of next_work's last answer again, for kernels that do not keep it live through their
// main loop.
template <class Sched>
__device__ __forceinline__ Tile work_tile(const Sched& sched, const WorkPlan& wp, const WorkCursor& c) {
  if (wp.sk.ctas == 0) return sched.at(c.it - static_cast<int>(gridDim.x));
  return sched.tile_at(segment_before(wp.sk, static_cast<int>(blockIdx.x), c.it, sched.span(c.it - 1)));
}

// Stream-K partial sums. kThreads threads (tid = 0 .. kThreads - 1, those holding accumulators)
// call these together; `sync()` is a barrier over exactly them.
// A kPartial segment: store this thread's accumulators to the CTA's slot (float4 [q][tid]:
// coalesced), then one thread raises the CTA's flag, after the barrier (the others' stores come
// before it) and a GPU-scope fence.
template <int kThreads, int kRegs, class Sync>
__device__ __forceinline__ void store_partial(const float (&acc)[kRegs], const WorkPlan& wp, int tid, Sync&& sync) {
  static_assert(kRegs % 4 == 0, "whole float4s");
  float4* slot = reinterpret_cast<float4*>(wp.partials + static_cast<int64_t>(blockIdx.x) * wp.slot_floats);
#pragma unroll
  for (int q = 0; q < kRegs / 4; ++q)
    __stcg(slot + q * kThreads + tid, make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]));
  sync();
  if (tid == 0) {
    __threadfence();
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(wp.flags + blockIdx.x), "r"(1u) : "memory");
  }
}

// Waits until flag `f` is raised, then lowers it for the next launch; called by a whole warp (lane
// = its lane), which polls with one load per round. No deadline: the host launches no more CTAs
// than are resident at once, so the CTAs an owner waits for are running. (One thread polling
// alone, or a __trap() after a deadline, made ptxas spill the 2 x 256 consumers, every
// accumulator being live here.)
__device__ __forceinline__ void wait_flag(unsigned* f, int lane) {
  for (;;) {
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(f) : "memory");
    if (__any_sync(~0u, v != 0)) break;
  }
  if (lane == 0) asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(f), "r"(0u) : "memory");
}

// A kOwner segment: adds the partial sums of CTAs (this one, peer_end), in CTA order, to acc:
// kBatch float4s of every peer at a time (the peer loop is not unrolled, so the loads of one
// batch cannot be hoisted above the previous one's adds, which keeps the accumulators and the
// loads in flight inside the registers of the 3 x 128 and 2 x 256 consumers).
// kBatchWant: the batch, where the caller's registers allow another (0: by kRegs, as above).
template <int kThreads, int kBatchWant = 0, int kRegs, class Sync>
__device__ __forceinline__ void add_partials(float (&acc)[kRegs], const WorkPlan& wp, int peer_end, int tid,
                                             Sync&& sync) {
  constexpr int kBatch = kBatchWant != 0 ? kBatchWant : kRegs >= 128 ? 4 : 8;
  static_assert(kRegs % (4 * kBatch) == 0, "whole batches");
  const int first = static_cast<int>(blockIdx.x) + 1;
  if (tid < 32)
    for (int c = first; c < peer_end; ++c) wait_flag(wp.flags + c, tid);
  sync();
#pragma unroll
  for (int q0 = 0; q0 < kRegs / 4; q0 += kBatch) {
#pragma unroll 1
    for (int c = first; c < peer_end; ++c) {
      const float4* slot = reinterpret_cast<const float4*>(wp.partials + static_cast<int64_t>(c) * wp.slot_floats);
      float4 v[kBatch];
#pragma unroll
      for (int i = 0; i < kBatch; ++i) v[i] = __ldcg(slot + (q0 + i) * kThreads + tid);
#pragma unroll
      for (int i = 0; i < kBatch; ++i) {
        acc[4 * (q0 + i)] += v[i].x;
        acc[4 * (q0 + i) + 1] += v[i].y;
        acc[4 * (q0 + i) + 2] += v[i].z;
        acc[4 * (q0 + i) + 3] += v[i].w;
      }
    }
  }
}

// ---- counts that are never reset ----
// The n participants of a launch (its CTAs, or the ranks of a tile) each add 1 to `count` once
// their stores are done, and launch k waits for the count to reach k x n: nothing is reset between
// launches (launches on one stream run one after another, CUDA graphs replay them, ncu's replay
// restores the count). Used by the tokens decoded in the main launch (TokenFuse) and the split-K
// reduction through L2.
// One thread of a participant, after a barrier over its threads: a GPU-scope fence (their stores,
// ordered before this thread by the barrier, before the count), the count, and the value at which
// every participant of this launch has counted: the next multiple of n.
__device__ __forceinline__ unsigned long long count_arrival(unsigned long long* count, unsigned long long n) {
  __threadfence();
  const unsigned long long old = atomicAdd(count, 1ull);
  return (old / n + 1) * n;
}
// Spins until `count` reaches `target` (acquire: what the count made visible is seen by this
// thread's later loads and cp.async copies, and by its CTA's after a barrier).
__device__ __forceinline__ void wait_count(const unsigned long long* count, unsigned long long target) {
  unsigned long long v;
  do {
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(count) : "memory");
  } while (v < target);
}

// ---- split-K reduction through L2, no cluster (docs/perf-notes.md P73) ----
// Tile `tile`'s never-reset count, after the launch's per-unit slots in wp.partials.
__device__ __forceinline__ unsigned long long* split_count(const WorkPlan& wp, int tile) {
  return reinterpret_cast<unsigned long long*>(wp.partials + int64_t{wp.units} * wp.slot_floats) + tile;
}
// After this rank's slot is written: every thread's stores ordered before thread 0 (sync), thread 0
// counts the rank on the tile's count of n ranks and waits for the launch's n, and the barrier
// after it hands the acquire to every thread. mark(p) as global_split_reduce's.
template <class Sync, class Mark>
__device__ __forceinline__ void split_count_wait(const WorkPlan& wp, int tile, unsigned long long n, int tid,
                                                 Sync&& sync, Mark&& mark) {
  sync();
  if (tid == 0) {
    unsigned long long* const count = split_count(wp, tile);
    mark(0);
    const unsigned long long target = count_arrival(count, n);
    mark(1);
    wait_count(count, target);
    mark(2);
  }
  sync();  // every peer's slot written and visible (the acquire above, then the barrier)
}
// A data-parallel launch with one unit per CTA, every CTA resident at once (the host checks), the
// `splits` ranks of a tile being consecutive CTAs: rank r sums the units [u0, u1) of the
// accumulators (kUnit consecutive registers each) that splitk_reduce would give it. Each rank
// writes the units the others sum to its slot of wp.partials (float4 [q][tid]: coalesced, L2 only),
// counts itself on its tile's count (count_arrival), waits until all ranks of this launch have
// (wait_count), then adds its
// peers' values for its share to its own, peer by peer in rank order (deterministic: the same order
// whichever rank finishes first) and hands the share to `epi(acc, u0, u1)`. No cluster, so the split count is
// bounded by the SMs alone, not by where clusters fit (clusters of 3 to 8 use 124 of an H100's 132
// SMs). kThreads threads (tid 0 .. kThreads - 1, those holding accumulators) call it together;
// `sync()` is a barrier over exactly them.
// `mark(p)` is called by thread 0 at three points (p = 0 stored, 1 counted, 2 every rank counted):
// probe builds' stamps (NVFP4BENCH_TRACE), a no-op otherwise.
template <int kThreads, int kRegs, int kUnit, class Sync, class Epi, class Mark>
__device__ __forceinline__ void global_split_reduce(float (&acc)[kRegs], const WorkPlan& wp, const Divisor& splits,
                                                    int tid, Sync&& sync, Epi&& epi, Mark&& mark) {
  static_assert(kRegs % kUnit == 0 && kUnit % 4 == 0, "units of whole float4s");
  constexpr int kUnits = kRegs / kUnit;
  const int s = splits;
  if (s == 1) {
    epi(acc, 0, kUnits);
    return;
  }
  const int b = static_cast<int>(blockIdx.x), tile = splits.div(b), rank = b - tile * s;
  const int u0 = rank * kUnits / s, u1 = (rank + 1) * kUnits / s;
  const int64_t slot4 = wp.slot_floats / 4;  // float4s per slot
  float4* const first = reinterpret_cast<float4*>(wp.partials) + int64_t{b - rank} * slot4 + tid;  // rank 0's
  float4* const mine = first + int64_t{rank} * slot4;
#pragma unroll
  for (int q = 0; q < kRegs / 4; ++q) {
    const int u = q * 4 / kUnit;
    if (u >= u0 && u < u1) continue;
    __stcg(mine + q * kThreads, make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]));
  }
  split_count_wait(wp, tile, s, tid, sync, mark);
  // The peers' values for this rank's share, kPeerBatch peers' loads in flight at once (P133: one
  // peer at a time, gemm 128x4096x7168's 3 peers were 3 dependent L2 round trips), added in rank
  // order as before (the same sums whichever rank finishes first). (Every load of the share in
  // flight at once, by cp.async into shared memory, was slower: P134.)
  constexpr int kPeerBatch = 4;
#pragma unroll 1
  for (int c0 = 0; c0 < s; c0 += kPeerBatch) {
#pragma unroll
    for (int q = 0; q < kRegs / 4; ++q) {
      const int u = q * 4 / kUnit;
      if (u < u0 || u >= u1) continue;
      float4 v[kPeerBatch];
#pragma unroll
      for (int j = 0; j < kPeerBatch; ++j)
        if (c0 + j < s && c0 + j != rank) v[j] = __ldcg(first + int64_t{c0 + j} * slot4 + q * kThreads);
#pragma unroll
      for (int j = 0; j < kPeerBatch; ++j) {
        if (c0 + j >= s || c0 + j == rank) continue;
        acc[4 * q] += v[j].x;
        acc[4 * q + 1] += v[j].y;
        acc[4 * q + 2] += v[j].z;
        acc[4 * q + 3] += v[j].w;
      }
    }
  }
  epi(acc, u0, u1);
}

// ---- split-K reduction over a cluster ----
// The `splits` CTAs of one output tile form one thread-block cluster (sm_90+). After its main loop
// each CTA stores its kRegs accumulators per thread to its own shared memory (`red`, kThreads *
// kRegs floats, as float4 [q][tid], tid = this thread's index among the kThreads that hold
// accumulators); after a cluster barrier (which every thread of the cluster's CTAs must reach: a
// kernel with threads that hold no accumulators makes them arrive twice, see cluster_sync) CTA rank c sums, for its share of
// the accumulator registers, the values of all CTAs in rank order through distributed shared
// memory (deterministic: the same order whichever CTA finishes first), and writes the outputs of
// that share; a second barrier keeps every CTA's shared memory alive until all have read it.
// Registers are shared out in units of kUnit consecutive registers (a unit holds whole outputs:
// dual_gemm's x1 and x2 of an output sit in the same unit). `epi(acc, u0, u1)` writes the outputs
// of units [u0, u1) from acc. No global workspace, no atomics, nothing to reset between launches.
// (Before: partial tiles in a global workspace, first summed by the last CTA alone, then with
// red.global.add: ~10 us of a 31 us gemm 128x7168x2048 on an H100 went to that reduction.)
// All threads of the cluster (sm_90+), memory ordered (release/acquire).
__device__ __forceinline__ void cluster_sync() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
#endif
}

// The same barrier with a relaxed arrival: no release fence (a MEMBAR.ALL.GPU in every arriving
// warp), for arrivals that publish nothing: after the last remote reads (their values used, so the
// reads are done), or by threads that wrote nothing the cluster reads (docs/perf-notes.md P66).
__device__ __forceinline__ void cluster_sync_relaxed() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\nbarrier.cluster.wait.aligned;" ::: "memory");
#endif
}

template <int kThreads, int kRegs, int kUnit, class Epi>
__device__ __forceinline__ void splitk_reduce(float (&acc)[kRegs], float* red, int splits, int tid, Epi&& epi) {
  static_assert(kRegs % kUnit == 0 && kUnit % 4 == 0, "units of whole float4s");
  constexpr int kUnits = kRegs / kUnit;
  if (splits == 1) {
    epi(acc, 0, kUnits);
    return;
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  float4* mine = reinterpret_cast<float4*>(red);
  const uint32_t rank = sm90::cluster_rank();
  const int u0 = static_cast<int>(rank) * kUnits / splits, u1 = (static_cast<int>(rank) + 1) * kUnits / splits;
  // 2 ranks: each publishes only the units its peer sums, and adds the peer's values to its own
  // accumulators (a + b = b + a in IEEE arithmetic: both orders give the same sums, so the result
  // does not depend on which rank sums a unit). More ranks publish everything and sum from zero in
  // rank order (below). docs/perf-notes.md P28.
  const int peer = static_cast<int>(rank) ^ 1;
  const int p0 = peer * kUnits / 2, p1 = (peer + 1) * kUnits / 2;
#pragma unroll
  for (int q = 0; q < kRegs / 4; ++q) {
    const int u = q * 4 / kUnit;
    if (splits == 2 && (u < p0 || u >= p1)) continue;
    mine[q * kThreads + tid] = make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]);
  }
  cluster_sync();
  const uint32_t local = static_cast<uint32_t>(__cvta_generic_to_shared(mine));
  // Two loop orders (docs/perf-notes.md P19, measured on an H100):
  //   2 ranks: every float4 of up to kBatch units of the share loaded from the peer before any is
  //     added: one DSMEM round trip per batch (1.1-1.2 us faster than per float4 on gemm
  //     128x7168x{2048,16384}); one batch at a time keeps the registers bounded (the whole share
  //     at once spilled the 128-register `vectorized`);
  //   more ranks (the share is then a few float4s): zeroed, then per float4 its value on every
  //     rank in rank order (1.2 us faster than the batches on gemm 128x4096x7168, 5 ranks).
  constexpr int kBatch = 4;
  const auto add_remote = [&](int q, uint32_t rank_base) {
    float4 v;
    asm volatile("ld.shared::cluster.v4.f32 {%0,%1,%2,%3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "r"(rank_base + static_cast<uint32_t>((q * kThreads + tid) * sizeof(float4))));
    acc[4 * q] += v.x;
    acc[4 * q + 1] += v.y;
    acc[4 * q + 2] += v.z;
    acc[4 * q + 3] += v.w;
  };
  const auto rank_base = [&](int c) { return sm90::cluster_map(local, static_cast<uint32_t>(c)); };
  if (splits == 2) {
    const uint32_t base = rank_base(peer);
#pragma unroll
    for (int ub = 0; ub < kUnits; ub += kBatch) {
      if (ub + kBatch <= u0 || ub >= u1) continue;
#pragma unroll
      for (int u = ub; u < ub + kBatch && u < kUnits; ++u) {
        if (u < u0 || u >= u1) continue;
#pragma unroll
        for (int q = u * kUnit / 4; q < (u + 1) * kUnit / 4; ++q) add_remote(q, base);
      }
    }
  } else {
#pragma unroll
    for (int u = 0; u < kUnits; ++u) {
      if (u < u0 || u >= u1) continue;
#pragma unroll
      for (int r = u * kUnit; r < (u + 1) * kUnit; ++r) acc[r] = 0.0f;
    }
#pragma unroll
    for (int u = 0; u < kUnits; ++u) {
      if (u < u0 || u >= u1) continue;
#pragma unroll
      for (int q = u * kUnit / 4; q < (u + 1) * kUnit / 4; ++q)
        for (int c = 0; c < splits; ++c) add_remote(q, rank_base(c));
    }
  }
  cluster_sync_relaxed();  // every rank's reads of this one are done (their values are summed)
  epi(acc, u0, u1);
#else
  __trap();  // the host never splits K without clusters (splits_supported)
#endif
}

// ---- split-K reduction over a cluster of 2, pushed (docs/perf-notes.md P32, P33) ----
// The same sums as splitk_reduce's 2-rank path, moved the other way: once its main loop is done
// and its shared memory free, each rank tells its peer so (a remote mbarrier arrive on the peer's
// `peer_ready`) and, once the peer has told it, writes the peer's half of its accumulators
// straight from registers into the peer's `recv` area with st.async, counted on the peer's
// `recv_full` (complete_tx); then it waits for its own `recv_full` and adds the peer's values to
// its own (a + b = b + a: the same bits whichever rank adds). No cluster barrier and no fence on
// the way: splitk_reduce's two cluster barriers cost ~0.75-1 us each (a MEMBAR.ALL.GPU in every
// arriving warp, P29 probe). With more ranks pushing lost to pulling (P33: +1.7 % on 5 and 7
// ranks), so splitk_reduce keeps those.
// The caller initialises both barriers (count 1 each), makes the initialisation visible to the
// cluster (fence.mbarrier_init, then a cluster barrier every thread arrives at and waits on before
// calling) and gives `recv` kRecvBytes of shared memory nothing else writes until the caller's
// next barrier. Called once per launch by kThreads threads, tid 0..kThreads - 1.
template <int kThreads, int kRegs, int kUnit>
struct PushReduce {
  static constexpr int kUnits = kRegs / kUnit, kQ = kUnit / 4;  // float4s per unit
  static_assert(kUnits % 2 == 0, "equal halves");
  static constexpr int kRecvBytes = kUnits / 2 * kQ * kThreads * 16;
  // Where `recv` starts in a ring whose first `bytes` hold the staged output tile: the next KiB.
  static constexpr int recv_after(int bytes) { return (bytes + 1023) / 1024 * 1024; }
};

// push_reduce2's first act, by thread tid 0: this rank expects the peer's half on recv_full and
// tells the peer that its receive area is free. The K-halves CTA (gemm_mma.cuh, P161c) calls it
// before it adds its halves, then push_send and push_receive (below) in place of push_reduce2.
template <int kThreads, int kRegs, int kUnit>
__device__ __forceinline__ void push_announce(uint64_t* recv_full, uint64_t* peer_ready, int tid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (tid == 0) {
    sm90::mbar_arrive_expect_tx(recv_full, PushReduce<kThreads, kRegs, kUnit>::kRecvBytes);
    sm90::mbar_arrive_remote(sm90::cluster_map(sm90::smem_addr(peer_ready), sm90::cluster_rank() ^ 1u));
  }
#else
  (void)recv_full, (void)peer_ready, (void)tid;
#endif
}

// This rank's half of the units, [u0, u0 + kUnits / 2), comes back in `own`, the peer's values
// added, chosen by the rank with selects rather than by a branch per block of accumulators (the
// branches and the skipped blocks cost the once-per-CTA code instruction fetches:
// docs/perf-notes.md P60).
template <int kThreads, int kRegs, int kUnit>
__device__ __forceinline__ void push_reduce2(const float (&acc)[kRegs], uint8_t* recv, uint64_t* recv_full,
                                             uint64_t* peer_ready, int tid, float (&own)[kRegs / 2], int& u0) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using P = PushReduce<kThreads, kRegs, kUnit>;
  constexpr int kHalf = kRegs / 2;
  const uint32_t rank = sm90::cluster_rank();
  const uint32_t peer = rank ^ 1u;
  const bool upper = rank != 0;  // this rank sums the upper half of the units, the peer the lower
  u0 = upper ? P::kUnits / 2 : 0;
  if (tid == 0) {  // push_announce's act (written out: calling it changed the SASS of every pushing kernel)
    sm90::mbar_arrive_expect_tx(recv_full, P::kRecvBytes);
    sm90::mbar_arrive_remote(sm90::cluster_map(sm90::smem_addr(peer_ready), peer));  // this ring is free
  }
  sm90::mbar_wait(peer_ready, 0);  // the peer's is
  NVFP4_PUSH_STAMP(0);
  const uint32_t dst = sm90::cluster_map(sm90::smem_addr(recv), peer) + static_cast<uint32_t>(tid) * 16;
  const uint32_t bar = sm90::cluster_map(sm90::smem_addr(recv_full), peer);
#pragma unroll
  for (int q = 0; q < kHalf / 4; ++q) {  // the peer's half (values selected, not addresses: a
    // pointer into the register array would put it in local memory)
    const int lo = 4 * q, hi = kHalf + 4 * q;
    sm90::st_async_v4(dst + static_cast<uint32_t>(q * kThreads * 16),
                      make_float4(upper ? acc[lo] : acc[hi], upper ? acc[lo + 1] : acc[hi + 1],
                                  upper ? acc[lo + 2] : acc[hi + 2], upper ? acc[lo + 3] : acc[hi + 3]),
                      bar);
  }
  NVFP4_PUSH_STAMP(1);
  sm90::mbar_wait(recv_full, 0);  // the peer's values for this rank's half
  NVFP4_PUSH_STAMP(2);
  const float4* v = reinterpret_cast<const float4*>(recv) + tid;
#pragma unroll
  for (int q = 0; q < kHalf / 4; ++q) {
    const float4 y = v[q * kThreads];
    const int lo = 4 * q, hi = kHalf + 4 * q;
    own[lo] = (upper ? acc[hi] : acc[lo]) + y.x;
    own[lo + 1] = (upper ? acc[hi + 1] : acc[lo + 1]) + y.y;
    own[lo + 2] = (upper ? acc[hi + 2] : acc[lo + 2]) + y.z;
    own[lo + 3] = (upper ? acc[hi + 3] : acc[lo + 3]) + y.w;
  }
#else
  (void)acc, (void)recv, (void)recv_full, (void)peer_ready, (void)tid, (void)own, (void)u0;
  __trap();  // the host never splits K without clusters (splits_supported)
#endif
}

// push_reduce2 in two calls, for a caller that has the peer's half of its accumulators before its
// own (the K-halves CTA, gemm_mma.cuh, P161c): push_send sends `send` (the peer's half, in the
// layout push_reduce2 sends) once the peer's receive area is free (push_announce ran on both
// ranks), and push_receive adds the peer's values for this rank's half to `keep`.
template <int kThreads, int kHalf>
__device__ __forceinline__ void push_send(const float (&send)[kHalf], uint8_t* recv, uint64_t* recv_full,
                                          uint64_t* peer_ready, int tid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const uint32_t peer = sm90::cluster_rank() ^ 1u;
  sm90::mbar_wait(peer_ready, 0);  // the peer's receive area is free
  const uint32_t dst = sm90::cluster_map(sm90::smem_addr(recv), peer) + static_cast<uint32_t>(tid) * 16;
  const uint32_t bar = sm90::cluster_map(sm90::smem_addr(recv_full), peer);
#pragma unroll
  for (int q = 0; q < kHalf / 4; ++q)
    sm90::st_async_v4(dst + static_cast<uint32_t>(q * kThreads * 16),
                      make_float4(send[4 * q], send[4 * q + 1], send[4 * q + 2], send[4 * q + 3]), bar);
#else
  (void)send, (void)recv, (void)recv_full, (void)peer_ready, (void)tid;
  __trap();
#endif
}
template <int kThreads, int kHalf>
__device__ __forceinline__ void push_receive(float (&keep)[kHalf], const uint8_t* recv, uint64_t* recv_full, int tid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  sm90::mbar_wait(recv_full, 0);  // the peer's values for this rank's half
  const float4* v = reinterpret_cast<const float4*>(recv) + tid;
#pragma unroll
  for (int q = 0; q < kHalf / 4; ++q) {
    const float4 y = v[q * kThreads];
    keep[4 * q] += y.x;
    keep[4 * q + 1] += y.y;
    keep[4 * q + 2] += y.z;
    keep[4 * q + 3] += y.w;
  }
#else
  (void)keep, (void)recv, (void)recv_full, (void)tid;
  __trap();
#endif
}

// push_reduce2 with its receive area in `ring` (kRingBytes), after the staged output tile of
// kStagedBytes.
template <int kThreads, int kRegs, int kUnit, int kRingBytes, int kStagedBytes>
__device__ __forceinline__ void push_reduce2_in_ring(const float (&acc)[kRegs], uint8_t* ring, uint64_t* recv_full,
                                                     uint64_t* peer_ready, int tid, float (&own)[kRegs / 2], int& u0) {
  using P = PushReduce<kThreads, kRegs, kUnit>;
  constexpr int kRecv = P::recv_after(kStagedBytes);
  static_assert(kRecv + P::kRecvBytes <= kRingBytes, "the peer's half fits in the ring after the staged tile");
  // The offset through an empty asm: folded into the addresses, ptxas spilled 80 bytes in the
  // `persistent` 2 x 256 gemm kernel (128 accumulators).
  uint32_t recv = kRecv;
  asm volatile("" : "+r"(recv));
  push_reduce2<kThreads, kRegs, kUnit>(acc, ring + recv, recv_full, peer_ready, tid, own, u0);
}

// A split tile's reduction as both tensor-core variants run it, then the epilogue on this rank's
// share of the units: 2 ranks pushed where `push` (push_reduce2, its receive area in `ring` after
// the staged output tile of kStagedBytes, recv_full / peer_ready its barriers), then
// epi_own(own, u0) on the half [u0, u0 + kUnits / 2) in `own`; else pulled (splitk_reduce, which
// also serves splits == 1), then epi(acc, u0, u1). kRingBytes is the ring's size.
template <int kThreads, int kRegs, int kUnit, int kRingBytes, int kStagedBytes, class Epi, class EpiOwn>
__device__ __forceinline__ void reduce_split(float (&acc)[kRegs], uint8_t* ring, int splits, bool push,
                                             uint64_t* recv_full, uint64_t* peer_ready, int tid, Epi&& epi,
                                             EpiOwn&& epi_own) {
  if (splits == 2 && push) {
    int u0;
    float own[kRegs / 2];
    push_reduce2_in_ring<kThreads, kRegs, kUnit, kRingBytes, kStagedBytes>(acc, ring, recv_full, peer_ready, tid,
                                                                           own, u0);
    epi_own(own, u0);
  } else {
    splitk_reduce<kThreads, kRegs, kUnit>(acc, reinterpret_cast<float*>(ring), splits, tid, epi);
  }
}
// The same, for an epilogue that takes only the whole accumulator array and a share [u0, u1): the
// pushed half is written back over this rank's half of `acc` (selects, no branch).
template <int kThreads, int kRegs, int kUnit, int kRingBytes, int kStagedBytes, class Epi>
__device__ __forceinline__ void reduce_split(float (&acc)[kRegs], uint8_t* ring, int splits, bool push,
                                             uint64_t* recv_full, uint64_t* peer_ready, int tid, Epi&& epi) {
  reduce_split<kThreads, kRegs, kUnit, kRingBytes, kStagedBytes>(
      acc, ring, splits, push, recv_full, peer_ready, tid, epi, [&](const float(&own)[kRegs / 2], int u0) {
        const bool upper = u0 != 0;
#pragma unroll
        for (int i = 0; i < kRegs / 2; ++i) {
          acc[i] = upper ? acc[i] : own[i];
          acc[kRegs / 2 + i] = upper ? own[i] : acc[kRegs / 2 + i];
        }
        epi(acc, u0, u0 + kRegs / kUnit / 2);
      });
}

// ---- split-K of 4 ranks: pairs through a cluster of 2, then quarters through L2 (P138) ----
// gemm's data-parallel split-K without clusters of 4 (they fit only 124 SMs): ranks 2p and 2p + 1
// of a tile (one cluster of 2) sum through distributed shared memory first (push_reduce2: each
// keeps half of the units, [uh, uh + kUnits / 2)), then each rank swaps quarters of that half with
// the rank of the other pair that holds the same half (blockIdx.x ^ 2) through L2 as
// global_split_reduce does (a slot per CTA, the tile's never-reset count over all 4 ranks): pair 0
// keeps the half's lower quarter, pair 1 the upper. The sums are (r0 + r1) + (r2 + r3), the same
// bits whichever rank adds (a + b = b + a). L2 carries a quarter of the tile out and in per CTA
// instead of three quarters. `ring`, recv_full and peer_ready as reduce_split's pushed path; the
// cluster barrier that makes the barriers' initialisation visible is the caller's. epi(acc, u0, u1)
// on the kept quarter, written back into `acc` by selects.
// pair_split_reduce's second part: `own`, the pair's sums of this rank's half [uh, uh + kUnits / 2)
// of the units, its quarters swapped through L2 with the other pair, epi on the kept quarter.
template <int kThreads, int kRegs, int kUnit, class Sync, class Epi>
__device__ __forceinline__ void pair_quarters(float (&acc)[kRegs], const float (&own)[kRegs / 2], int uh,
                                              const WorkPlan& wp, const Divisor& splits, int tid, Sync&& sync,
                                              Epi&& epi) {
  constexpr int kUnits = kRegs / kUnit, kQuarter = kRegs / 4;
  static_assert(kUnits % 4 == 0, "whole units in each quarter");
  const int b = static_cast<int>(blockIdx.x), tile = splits.div(b), pair = (b - tile * 4) / 2;
  const bool lower = pair == 0;  // keeps own[0, kQuarter), sends own[kQuarter, kHalf)
  const int64_t slot4 = wp.slot_floats / 4;
  float4* const mine = reinterpret_cast<float4*>(wp.partials) + int64_t{b} * slot4 + tid;
  const float4* const other = reinterpret_cast<const float4*>(wp.partials) + int64_t{b ^ 2} * slot4 + tid;
#pragma unroll
  for (int q = 0; q < kQuarter / 4; ++q) {
    const int lo = 4 * q, hi = kQuarter + 4 * q;
    __stcg(mine + q * kThreads, make_float4(lower ? own[hi] : own[lo], lower ? own[hi + 1] : own[lo + 1],
                                            lower ? own[hi + 2] : own[lo + 2], lower ? own[hi + 3] : own[lo + 3]));
  }
  split_count_wait(wp, tile, 4, tid, sync, [](int) {});  // the other pair's quarter written and visible
  float4 v[kQuarter / 4];
#pragma unroll
  for (int q = 0; q < kQuarter / 4; ++q) v[q] = __ldcg(other + q * kThreads);
  float kept[kQuarter];
#pragma unroll
  for (int q = 0; q < kQuarter / 4; ++q) {
    const int lo = 4 * q, hi = kQuarter + 4 * q;
    kept[lo] = (lower ? own[lo] : own[hi]) + v[q].x;
    kept[lo + 1] = (lower ? own[lo + 1] : own[hi + 1]) + v[q].y;
    kept[lo + 2] = (lower ? own[lo + 2] : own[hi + 2]) + v[q].z;
    kept[lo + 3] = (lower ? own[lo + 3] : own[hi + 3]) + v[q].w;
  }
  const int u0 = uh + (lower ? 0 : kUnits / 4);  // the kept quarter's first unit
#pragma unroll
  for (int k = 0; k < 4; ++k)
#pragma unroll
    for (int i = 0; i < kQuarter; ++i) acc[k * kQuarter + i] = u0 == k * kUnits / 4 ? kept[i] : acc[k * kQuarter + i];
  epi(acc, u0, u0 + kUnits / 4);
}
template <int kThreads, int kRegs, int kUnit, int kRingBytes, int kStagedBytes, class Sync, class Epi>
__device__ __forceinline__ void pair_split_reduce(float (&acc)[kRegs], uint8_t* ring, const WorkPlan& wp,
                                                  const Divisor& splits, uint64_t* recv_full, uint64_t* peer_ready,
                                                  int tid, Sync&& sync, Epi&& epi) {
  int uh;
  float own[kRegs / 2];
  push_reduce2_in_ring<kThreads, kRegs, kUnit, kRingBytes, kStagedBytes>(acc, ring, recv_full, peer_ready, tid, own,
                                                                         uh);
  pair_quarters<kThreads, kRegs, kUnit>(acc, own, uh, wp, splits, tid, sync, epi);
}

// ---- epilogues ----


// Writes output (m, n) of batch l of C [l][M][N] from the FP32 sums x1 (and x2 for dual_gemm),
// bounds-checked. (Takes C and its sizes, not GemmArgs: with a grouped table in global memory the
// compiler would reload the fields after every store.)
struct OutView {
  __half* c;
  int64_t m, n;
};
template <int NB>
__device__ __forceinline__ void store_output(const OutView& o, int64_t l, int64_t m, int64_t n, float x1, float x2) {
  if (m >= o.m || n >= o.n) return;
  __half v;
  if constexpr (NB == 1) {
    v = __float2half_rn(x1);
    (void)x2;
  } else {
    v = __float2half_rn(silu_mul(x1, x2));  // the reference's silu_mul (reference/dequant.cuh)
  }
  o.c[(l * o.m + m) * o.n + n] = v;
}

// silu(g) * u for the tensor-core epilogues (`tensor-core`, `persistent`): x / (1 + exp(-x)) with
// the hardware exponential and an approximate division (MUFU.EX2, MUFU.RCP; the CUDA guide bounds
// __expf by 2 + 1.173 |x| FP32 ulps and __fdividef by 2, so below ~110 ulps, 7e-6 relative, for
// every x that does not give 0: under 1/70 of an FP16 ulp before the one rounding, so an output
// differs from the reference's silu_mul by at most one FP16 ulp, in rare cases, far inside the
// tolerance). The exact form's IEEE division has a slow-path call that keeps ptxas from
// overlapping one output's chain with the next: 2.3-9.4 us per dual_gemm tile (docs/perf-notes.md
// P27). g < -87 gives 0 (exp overflows).
__device__ __forceinline__ float silu_mul_fast(float g, float u) { return __fdividef(g, 1.0f + __expf(-g)) * u; }

// A swap-AB tile's outputs by 8 x 8 blocks. In the MMA accumulator layout lane (g, t) of a warp
// holds, for each block, output column n0 + g of tokens m0 + 2t and m0 + 2t + 1 (a, b: final FP32
// values, rounded once to FP16 here). The lane's address in C and the bounds are set up once per
// tile, so a block costs two compares and two stores at constant offsets from it: ~12
// instructions per two outputs where store_output's 64-bit index arithmetic and bounds test per
// element took ~60 and 3-5 us per tile (docs/perf-notes.md P25). (Transposing the blocks across
// the warp for 4-byte stores, with movmatrix or shuffles, made ptxas move the consumers' ring
// addresses out of the uniform registers and guard the K loop's barrier wait: 119 -> 125
// instructions per K step.)
struct TileStore {
  __half* lane;        // &C[l][m0 + 2t][n0 + g], (m0, n0) the warp's first token and output column
  int n;               // C's row length (N)
  int m_left, n_left;  // tokens and columns of C from (m0, n0) on
  int g, t2;           // lane (g, t): g and 2t
  __device__ __forceinline__ TileStore(const OutView& o, int64_t l, int64_t m0, int64_t n0, int lane_id) {
    n = static_cast<int>(o.n);
    m_left = static_cast<int>(o.m - m0);
    n_left = static_cast<int>(o.n - n0);
    g = lane_id / 4;
    t2 = 2 * (lane_id % 4);
    lane = o.c + (l * o.m + m0 + t2) * o.n + n0 + g;
  }
  // The block of tokens m0 + dm .. + 7 and columns n0 + dn .. + 7 (dm, dn multiples of 8): this
  // lane's outputs, tokens m0 + dm + 2t (a) and + 1 (b) of column n0 + dn + g.
  __device__ __forceinline__ void block(int dm, int dn, float a, float b) const {
    if (dn + g < n_left) {
      __half* c = lane + static_cast<int64_t>(dm) * n + dn;
      if (dm + t2 < m_left) c[0] = __float2half_rn(a);
      if (dm + t2 + 1 < m_left) c[n] = __float2half_rn(b);
    }
  }
};

// C's base and rows 16-byte aligned (N % 8 == 0): 16-byte vector stores, and a TMA descriptor of C
// (group_gemm's held tiles), are possible.
__host__ __device__ __forceinline__ bool c_rows_aligned(const __half* c, int64_t n) {
  return (n % 8) == 0 && (reinterpret_cast<uintptr_t>(c) & 15) == 0;
}

// Outputs n.. n + 7 of C row m (those inside C) from v (8 FP16 values): one 16-byte store where
// `vectors` (c_rows_aligned) and all 8 lie inside, else one by one.
__device__ __forceinline__ void store_vec8(const OutView& o, int64_t l, int64_t m, int64_t n, const uint4& v,
                                           bool vectors) {
  if (m >= o.m || n >= o.n) return;
  __half* dst = o.c + (l * o.m + m) * o.n + n;
  if (vectors && n + 8 <= o.n) {
    *reinterpret_cast<uint4*>(dst) = v;
  } else {
    const __half* h = reinterpret_cast<const __half*>(&v);
    for (int e = 0; e < 8 && n + e < o.n; ++e) dst[e] = h[e];
  }
}

// TileStore's blocks written to a tile of T in shared memory (rows = tokens, kCols output
// columns, rows padded by 16 bytes so that lanes t = 0..3, rows 2t, land 8 banks apart): FP16
// rounded once (StagedTile) or FP32 as they are (PartialTile).
template <int kCols, class T>
struct LaneTile {
  static constexpr int kPitch = kCols + 16 / static_cast<int>(sizeof(T));  // elements
  static_assert(kCols % 8 == 0, "whole 16-byte vectors per row (FP16), per half row (FP32)");
  static constexpr int bytes(int rows) { return rows * kPitch * static_cast<int>(sizeof(T)); }
  T* s;     // the tile
  T* lane;  // &s[2t][c0 + g]: this lane's first output, c0 the warp's first column
  __device__ __forceinline__ LaneTile(uint8_t* smem, int c0, int lane_id)
      : s(reinterpret_cast<T*>(smem)), lane(s + 2 * (lane_id % 4) * kPitch + c0 + lane_id / 4) {}
  // As TileStore::block: rows dm + 2t (a) and + 1 (b) of column dn + g.
  __device__ __forceinline__ void block(int dm, int dn, float a, float b) const {
    lane[dm * kPitch + dn] = cvt(a);
    lane[(dm + 1) * kPitch + dn] = cvt(b);
  }
  __device__ __forceinline__ static T cvt(float x) {
    if constexpr (std::is_same_v<T, __half>)
      return __float2half_rn(x);
    else
      return x;
  }
};

// The FP16 tile, then copied to C by whole rows: 16-byte vectors, consecutive threads along a row.
// For a CTA's last tile, whose ring is free once every consumer is done with it (P26), and
// group_gemm's earlier tiles, in a held ring stage by passes (P80): every consumer warp's 2-byte
// stores went straight to C in 4 rows of 16 bytes per instruction, 3-16 us per tile in the P25
// trace, 3.6-10 us in P80's (the 256-token tiles slowest), docs/perf-notes.md.
template <int kCols>
struct StagedTile : LaneTile<kCols, __half> {
  using Base = LaneTile<kCols, __half>;
  using Base::kPitch;
  using Base::s;
  static constexpr int kVecs = kCols / 8;  // 16-byte vectors per row
  // sm_90+: block() writes the lane's pair as one stmatrix (.trans: the warp's 8 x 8 block of
  // columns x tokens lands as 8 token rows of 8 columns), one 128-byte shared-memory wavefront
  // per block where two 2-byte stores took two (docs/perf-notes.md P82). row: the shared-memory
  // address of row lane % 8, column c0 (lanes 0-7 give stmatrix's row addresses).
  uint32_t row;
  __device__ __forceinline__ StagedTile(uint8_t* smem, int c0, int lane_id)
      : Base(smem, c0, lane_id),
        row(sm90::smem_addr(smem) +
            static_cast<uint32_t>(((lane_id % 8) * kPitch + c0) * static_cast<int>(sizeof(__half)))) {}
  // As LaneTile::block (rows dm + 2t (a) and + 1 (b) of column dn + g); every lane of the warp
  // calls it with the same dm and dn (the block is the warp's).
  __device__ __forceinline__ void block(int dm, int dn, float a, float b) const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const __half2 v = __floats2half2_rn(a, b);  // .x (low half): token dm + 2t, the fragment's lower column
    asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" ::"r"(
                     row + static_cast<uint32_t>((dm * kPitch + dn) * static_cast<int>(sizeof(__half)))),
                 "r"(*reinterpret_cast<const uint32_t*>(&v))
                 : "memory");
#else
    Base::block(dm, dn, a, b);
#endif
  }
  // Rows [r0, r1) to C rows m0 + r, columns n0..n0 + kCols - 1 (those inside C), by kThreads
  // threads; after a barrier over them that follows every block().
  template <int kThreads>
  __device__ __forceinline__ void copy_out(const OutView& o, int64_t l, int64_t m0, int64_t n0, int r0, int r1,
                                           int tid) const {
    // c_rows_aligned's test, written out: calling it changed the SASS of every gemm and dual_gemm
    // kernel (instructions, not only registers), a change no GPU run has measured.
    const bool vectors = (o.n % 8) == 0 && (reinterpret_cast<uintptr_t>(o.c) & 15) == 0;
    if (vectors && m0 + r1 <= o.m && n0 + kCols <= o.n) {
      // The rows lie wholly inside C: no test per vector (its branches' reconvergence points were
      // where the short shapes' warps waited for instructions, docs/perf-notes.md P61).
      __half* const row0 = o.c + (l * o.m + m0) * o.n + n0;
#pragma unroll 1
      for (int i = tid; i < (r1 - r0) * kVecs; i += kThreads) {
        const int r = r0 + i / kVecs, c = (i % kVecs) * 8;
        *reinterpret_cast<uint4*>(row0 + static_cast<int64_t>(r) * o.n + c) =
            *reinterpret_cast<const uint4*>(s + r * kPitch + c);
      }
      return;
    }
    for (int i = tid; i < (r1 - r0) * kVecs; i += kThreads) {
      const int r = r0 + i / kVecs, c = (i % kVecs) * 8;
      store_vec8(o, l, m0 + r, n0 + c, *reinterpret_cast<const uint4*>(s + r * kPitch + c), vectors);
    }
  }
};

// ---- split-K reduction over a cluster, by output rows (`tensor-core` gemm and group_gemm, 3 or more ranks; docs/perf-notes.md P66) ----
// Each rank writes its whole partial tile to its own shared memory in FP32, in output order
// (PartialTile: rows = tokens, kCols output columns), and after a cluster barrier sums rows
// [r0, r1) of it over every rank in rank order (sum_rows_out): each thread loads its outputs from
// every rank at once (up to 4 ranks' loads in flight: independent distributed-shared-memory
// loads, where splitk_reduce adds one rank's float4 to the accumulators before it loads the next),
// and writes the finished FP16 outputs straight to C. A second cluster barrier keeps every rank's
// shared memory alive until all have read it. The accumulators are free once written out, so the
// loads do not compete with them for registers.
inline constexpr int kMaxClusterRanks = 8;  // the portable cluster size: the most K splits of a tile
template <int kCols>
using PartialTile = LaneTile<kCols, float>;

// Rows [r0, r1) of the cluster's PartialTile<kCols> (at `tile` in every rank's shared memory, after
// a cluster barrier that follows every rank's block()), summed over ranks 0..splits-1 in that
// order, times `scale`, rounded once to FP16 into C rows m0 + r. By kThreads threads, tid. A
// thread takes 4 outputs from each half of a row (columns c and kCols / 2 + c), so consecutive
// threads read consecutive float4s (8 consecutive outputs per thread read every bank twice:
// 8-rank reductions ran up to 9 us slower, P66), and writes 8-byte vectors.
template <int kCols, int kThreads>
__device__ __forceinline__ void sum_rows_out(const uint8_t* tile, int splits, float scale, const OutView& o, int64_t l,
                                             int64_t m0, int64_t n0, int r0, int r1, int tid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using P = PartialTile<kCols>;
  constexpr int kHalf = kCols / 2;  // a thread's second 4 outputs sit kHalf columns on
  constexpr int kVecs = kHalf / 4;  // threads per row
  constexpr int kBatch = 4;         // ranks whose loads are in flight together
  const uint32_t local = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
  uint32_t base[kMaxClusterRanks];
#pragma unroll
  for (int c = 0; c < kMaxClusterRanks; ++c) base[c] = sm90::cluster_map(local, static_cast<uint32_t>(c < splits ? c : 0));
  const bool vectors = (o.n % 4) == 0 && (reinterpret_cast<uintptr_t>(o.c) & 7) == 0;
#pragma unroll 1
  for (int i = tid; i < (r1 - r0) * kVecs; i += kThreads) {
    const int r = r0 + i / kVecs, c = (i % kVecs) * 4;
    const int64_t m = m0 + r;
    if (m >= o.m || n0 + c >= o.n) continue;
    const uint32_t off = static_cast<uint32_t>((r * P::kPitch + c) * 4);
    float x[2][4];  // [half][output]
#pragma unroll
    for (int c0 = 0; c0 < kMaxClusterRanks; c0 += kBatch) {
      if (c0 >= splits) break;
      float4 v[kBatch][2];
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        if (c0 + j >= splits) break;
#pragma unroll
        for (int h = 0; h < 2; ++h)
          asm volatile("ld.shared::cluster.v4.f32 {%0,%1,%2,%3}, [%4];"
                       : "=f"(v[j][h].x), "=f"(v[j][h].y), "=f"(v[j][h].z), "=f"(v[j][h].w)
                       : "r"(base[c0 + j] + off + static_cast<uint32_t>(h * kHalf * 4)));
      }
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        if (c0 + j >= splits) break;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const float y[4] = {v[j][h].x, v[j][h].y, v[j][h].z, v[j][h].w};
#pragma unroll
          for (int e = 0; e < 4; ++e) x[h][e] = c0 + j == 0 ? y[e] : x[h][e] + y[e];
        }
      }
    }
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int64_t n = n0 + c + h * kHalf;
      if (n >= o.n) continue;
      __align__(8) __half out[4];
#pragma unroll
      for (int e = 0; e < 4; ++e) out[e] = __float2half_rn(x[h][e] * scale);
      __half* dst = o.c + (l * o.m + m) * o.n + n;
      if (vectors && n + 4 <= o.n) {
        *reinterpret_cast<uint2*>(dst) = *reinterpret_cast<const uint2*>(out);
      } else {
        for (int e = 0; e < 4 && n + e < o.n; ++e) dst[e] = out[e];
      }
    }
  }
#else
  (void)tile, (void)splits, (void)scale, (void)o, (void)l, (void)m0, (void)n0, (void)r0, (void)r1, (void)tid;
  __trap();  // the host never splits K without clusters (splits_supported)
#endif
}

}  // namespace nvfp4::gemm
