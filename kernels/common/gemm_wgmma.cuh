// SPDX-License-Identifier: Apache-2.0
// gemm_wgmma.cuh: the `persistent` main loop of gemm (NB = 1) and dual_gemm (NB = 2) on Hopper
// (sm_90a): TMA into a shared-memory ring guarded by mbarriers, one producer warpgroup, 2 or 3
// consumer warpgroups that decode the weights in registers and feed them to wgmma as the A
// operand, a persistent grid over the output tiles, and split-K through distributed shared
// memory where the tiles do not fill the GPU.
//
// Two launches per call, both timed:
//   1. decode_tokens (gemm_tokens.cuh): A (tokens) -> exact FP16 a*sa*2^-14 in a workspace [L][M_pad][K],
//      "fragment order" inside each 64-element chunk. gemm plans whose grid is resident and whose
//      consumer threads' share is one batch of loads skip it: the main launch does that work
//      itself (TokenFuse, gemm_tokens.cuh; docs/perf-notes.md P71); so do group_gemm's 2 x 128
//      plans of at most 4 groups (P74) and its 2 x 256 plans of at most 8 whose share is 2-4 chunks
//      per consumer thread, in two counted phases (WideTokens, P123).
//   2. wgmma_gemm<NB, C, T>: swap-AB. CTA tile = 64 x C weight slots (wgmma M side: 64 per
//      consumer warpgroup) x T tokens (wgmma N: 128, or 256 for M > 128), K step 64. The runner
//      picks (C, T) per case from (2, 128), (3, 128), (2, 256) by a cost model with measured
//      K-step times and a split's price (docs/perf-notes.md P5, P7, P17, P34) and reports it as
//      the result's `plan`.
//      gemm: slot s is B row n0 + s; dual_gemm: slots alternate in runs of 8 between B1 and B2
//      (SlotMap<2, 8>), so a thread's accumulator rows g and g + 8 are x1 and x2 of the same
//      output and a CTA covers 32 x C output columns.
//      Producer (TileShape::issuers threads, 3 by default: tokens | weights | scale atoms, one
//      thread each): per K step, one TMA of the token tile (T rows of 128 bytes with the
//      128-byte swizzle, as wgmma reads it), one (gemm) or two (dual: B1, B2) TMA boxes of packed
//      weights (32-byte rows) and the bulk copies of the 512-byte blocked scale atoms the tile's
//      rows span (PROBLEMS.md 1.3: 128 rows x 4 scales are contiguous), completing on the
//      stage's `full` mbarrier.
//      Consumers: lane (g, t) of warp w in warpgroup c loads, for rows 8h + g of its warp's 16
//      slots, scale block t of the chunk (one LDS.64 + one scale byte per row, the words turned
//      into byte form at once: core/fp4_decode.cuh), and works through the chunk's four k16
//      slices: wait until at most the previous slice's wgmma still runs, build this slice's A
//      fragment (one PRMT and one HMUL2 per half2) into one of two 4-register buffers, issue one
//      wgmma m64nTk16 (A registers, B = token tile in shared memory), commit. So each warpgroup decodes slice q + 1 while the
//      wgmma of slice q runs (docs/perf-notes.md P9). A stage is freed (`empty`, every consumer
//      thread arrives) once the wgmma of its last slice is done.
//   Persistent, one of two ways (gemm_common.cuh WorkPlan, the runner's cost model picks):
//   data-parallel: grid = min(units, resident CTAs); CTA b computes units b, b + grid, ... (a
//   unit is a tile, or one K range of a tile when split); split-K only when every unit gets its
//   own CTA (one wave), the splits of a tile forming a cluster: 2 ranks push each other's half
//   (push_reduce2), more pull their shares (splitk_reduce), gemm_common.cuh. Stream-K
//   (stream_k.hpp): every resident CTA runs an equal share of all tiles' K steps; a tile's later
//   runs store partial sums to a global workspace, the CTA with its first run adds them and
//   stores the tile. Either way the producer runs ahead into the next tile while the consumers
//   store the last one.
//   Epilogue: acc * 2^28 (the raw scale of both operands, P172), FP16 or silu(x1)*x2 (silu_mul_fast), staged in
//   shared memory and copied out by whole rows (StagedTile, gemm_common.cuh): the CTA's last tile
//   through its idle ring; earlier tiles (group_gemm) through their last K step's stage, which the
//   consumers hold until a TMA store per warpgroup and pass has read it (HeldTile; P80, P84), or
//   (gemm, dual_gemm) straight to C (TileStore).
#pragma once

#include <cuda.h>  // CUtensorMap (types only: the encoder is fetched from the driver at run time)
#include <cuda_fp16.h>
#include <cudaTypedefs.h>

#include <cstdlib>
#include <memory>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "core/case_data.hpp"
#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/device_info.hpp"
#include "core/fp4_decode.cuh"
#include "core/hopper.cuh"
#include "core/variant.hpp"
#include "gemm_launch.cuh"
#include "balance.hpp"
#include "gemm_tokens.cuh"

// Probe builds only (-DNVFP4_TRACE=1, CMake NVFP4BENCH_TRACE=ON; never in a report's build): the
// persistent kernels stamp %globaltimer at fixed points of each CTA's start into a buffer the
// runner allocates, and the runner appends the last launch's stamps to the file named by
// NVFP4_TRACE_OUT when it goes away (scripts/dev/trace_summary.py prints medians over CTAs).
// Slots (TraceSlot): what each stamp marks.
#ifndef NVFP4_TRACE
#define NVFP4_TRACE 0
#endif
// Trace builds: the first full stage of each unit stamped inside the K loop too (costs the loop,
// P141); -DNVFP4_TRACE_FIRST_FULL=1 in CMAKE_CUDA_FLAGS.
#ifndef NVFP4_TRACE_FIRST_FULL
#define NVFP4_TRACE_FIRST_FULL 0
#endif
namespace nvfp4::gemm::wg {
enum TraceSlot : int {
  kTrEntry,          // thread 0 at entry
  kTrConsumerStart,  // consumer 0 after its setmaxnreg
  kTrShareStored,    // consumer 0: its fused share stored (before the consumers' barrier); decoder-CTA
                     // plans: its local tokens decoded and stored (their loads landed)
  kTrShareSynced,    // consumer 0: every consumer's share (decoder-CTA plans: local tokens) stored
  kTrCounted,        // the CTA's count returned (consumer 0, or the token warp); decoder-CTA plans:
                     // consumer 0's local loads issued (at entry in gemm's kernel: then after them)
  kTrTokWait,        // token warp: every CTA counted
  kTrTokFirst,       // token warp: first copy issued
  kTrWFirst,         // weights warp: first copy issued
  kTrWHeld,          // weights warp: its held copies released (P126)
  kTrDone,           // consumer 0: its last unit stored
  kTrWNextWork,      // weights warp: its first unit's next_work returned
  kTrWSetup,         // weights warp: its first unit's entry, descriptors' address and atoms computed
  kTrEpilogue,       // consumer 0: its last unit's outputs summed (after any split-K exchange), before the stores
  kTrXStored,        // consumer 0, split-K through L2: every consumer's partials stored (after their barrier)
  kTrXCounted,       // ... its rank's count returned (fence and atomic)
  kTrXWaited,        // ... every rank of its tile counted
  // Per unit u < kTraceUnits of the CTA (consumer 0), at kTrUnits + kTrUnitSlots u: next_work
  // returned, its first stage full, its K loop done, (not a time) its group | wgmma width << 8,
  // its epilogue's start (the consumers' barrier after the K loop), its stores issued, and
  // (group_gemm's held path) the previous unit's held stage freed at this unit's start (the first
  // unit's are the CTA's start of work, first full stage and first K loop's end).
  kTrUnits,
  kTrUnitSlots = 8,
  kTraceUnits = 8,
  kTraceSlots = kTrUnits + kTrUnitSlots * kTraceUnits
};
// A unit's slots (kTrUnits + kTrUnitSlots u + ...).
enum TraceUnitSlot : int { kTuNextWork, kTuFirstFull, kTuLoopEnd, kTuInfo, kTuEpilogue, kTuStored, kTuHeldFreed };
// Slot `slot` of unit u.
constexpr int unit_slot(int u, TraceUnitSlot slot) { return kTrUnits + kTrUnitSlots * u + slot; }
#if NVFP4_TRACE
__device__ unsigned long long* g_trace;
#define NVFP4_STAMP(slot) NVFP4_STAMP_TO(g_trace, blockIdx.x * ::nvfp4::gemm::wg::kTraceSlots + (slot))
#else
#define NVFP4_STAMP(slot) ((void)0)
#endif

// wgmma m64 tiles per consumer warpgroup. 2 (256 weight slots per CTA, half the token traffic per
// MMA) measured slower on every benchmark shape (docs/perf-notes.md, P3): 1.
inline constexpr int kMT = 1;
inline constexpr int kBK = kTokenChunk;              // 64
inline constexpr int kAtomBytes = 512;               // blocked scales of 128 rows x 4 scale columns
inline constexpr int kUnit = 8;         // split-K share unit: two n8 blocks (x1 and x2 of an output together)
// The cost model's inputs (WgmmaRunner), measured on an H100 after P14 (docs/perf-notes.md P17):
// K-step times of 3 x 128 and 2 x 256 relative to 2 x 128, from one-round launches without split,
// and the extra cost of a split-K launch (its DSMEM reduction and shorter units), in 2 x 128 steps:
// 10 with the pulled reduction (P17), 3 since the 2-rank one is pushed (P34: forced CTA shapes on
// every default shape, one H100 call; dual_gemm 256x4096x7168 ran 1.55 us faster as 2 x 256 in 2
// splits than as 2 x 128 unsplit, where 10 had the model pick the latter).
inline constexpr double kThreeStep = 1.49;
inline constexpr double kWideStep = 1.87;
// With 3 or more ranks the cluster reduction is pulled (splitk_reduce), and a gemm launch may send
// its partial sums through L2 instead (global_split_reduce), which needs no cluster placement
// (P73, H100: through L2 ~1.9 us slower than the pushed 2-rank reduction, 0.2-0.5 us faster than the
// pulled 3-rank one; the P29 probe put the pulled reduction ~2 us above the pushed one).
inline constexpr double kSplitSteps = 3.0;
inline constexpr double kPulledSplitSteps = 9.0;
inline constexpr double kGlobalSplitSteps = 8.5;
// Stream-K (P18, measured on an H100, docs/perf-notes.md P18 outcome): a partial tile of 2 x 128
// accumulators (64 KiB) read from L2 by its owner ~ 3 K steps, written by its CTA ~ 1; and a
// stream-K K step costs kStreamKStep data-parallel ones: its CTAs walk K out of step with each
// other (L2 traffic +35 % under ncu), and forced stream-K was 2-25 % slower than the
// data-parallel plan on every benchmark shape, so it is taken only where the data-parallel plan
// quantizes worse than that.
inline constexpr double kPeerSteps = 3.0;
inline constexpr double kStoreSteps = 1.0;
inline constexpr double kStreamKStep = 1.3;
// Producer threads that issue a K step's copies (TileShape::issuers; docs/perf-notes.md P22, P23).
inline constexpr int kIssuers = 3;
// gemm's and group_gemm's decoder-CTA plans (kStream): groups of kStreamSteps K steps at the start
// of each CTA's unit whose tokens its consumers decode into its ring themselves
// (TokenFuse::local_groups, docs/perf-notes.md P105): 1 (4 K steps) for both. group_gemm took 2
// (8 K steps: G=2 [192,320] 0.6-1.0 % faster than 1, P125's session) until its decoder CTAs dealt
// their items across the CTAs and stored each before fetching the next (P214), after which 1 is
// 1.3 % faster than main's 2 on that case (the decoders' first round had been what 8 local steps
// waited for, P211-P213b).
inline constexpr int kLocalGroups = 1;
// Fused plans (TokenFuse::weights_ahead): the weights' and atoms' first kWeightsAhead K steps are
// copied at entry, the rest once the CTA's share of the decode is counted, so that the opening
// burst does not queue ahead of the share's stores and their fence (docs/perf-notes.md P126: gemm
// 128x4096x7168 -1.5 %, G=2 [128,384] -1.0 % on an H200 against 0; 2 was within 0.5 % of it).
inline constexpr int kWeightsAhead = 4;
// group_gemm's decoder CTAs: parts of kStreamRows token rows per piece, one fence each (P108).
inline constexpr int kGroupStreamParts = 2;
// group_gemm: a partly filled token tile runs its K loop on wgmmas as wide as its live tokens
// allow (narrow_width; GroupScheduler::narrow; docs/perf-notes.md P62, P78), and where CTAs run
// several units the units are handed out by cost (balance.hpp, P63). kStep64 and kStep96: the
// K-step time of a 128-token tile that runs 64 or 96 wide relative to a full one (P78, H100),
// for that balance and the cost model; 256-token tiles: wide_step.
// Since P219 112: 64, 96 and 112 with balanced tiles where the launch runs decoder CTAs (else 96).
inline constexpr int kNarrowTokens = 112;
inline constexpr double kStep64 = 0.82, kStep96 = 0.90;
// kStep112: P218's n64 / n96 / n128 steps (0.261 / 0.284 / 0.315 us, H200) interpolated.
inline constexpr double kStep112 = 0.95;
// group_gemm's 256-token tiles: the K step at width 64, 96, ..., 256 tokens in full 2 x 128 K
// steps (P78 probe after P79, H100: 8 groups of that many tokens, N = 4096, K = 7168, each CTA
// shape forced; kStep64 / kStep96 from the same run). Below ~160 tokens the weights' decode and
// the data path set it (~10 % dearer than in 2 x 128, whose ring has 8 stages to this one's 6),
// above it the tensor pipe.
inline constexpr double kWideGroupStep[7] = {0.92, 1.00, 1.10, 1.21, 1.37, 1.53, 1.70};
inline double wide_step(int width) { return kWideGroupStep[width / 32 - 2]; }
// What a 256-token unit costs inside a launch of mixed widths, for handing the units out
// (balance.hpp): its K step at width 64, 96, ..., 256 relative to a full one, and what each unit
// adds to its CTA beyond its K steps (its epilogue through the held stage and the next unit's
// start), in full K steps. From P81's per-tile trace (H100, the two G=8 benchmark cases: K steps
// 0.27 / 0.32 / 0.36 / 0.39 / 0.45-0.49 / 0.58 / 0.61 us; 1.95 us epilogue + 1.0 us to the next
// unit's first step), docs/perf-notes.md P81. The narrow widths cost less next to wide ones than
// kWideGroupStep (8 groups of one width) says.
inline constexpr double kWideMixedStep[7] = {0.445, 0.517, 0.592, 0.631, 0.77, 0.943, 1.0};
inline constexpr double kWideUnitSteps = 5.0;
// NVFP4_PERSISTENT_MIXED_PRICES="p64,p96,p128,p160,p192,p224,p256,unit" replaces kWideMixedStep and
// kWideUnitSteps for one run (a probe knob, docs/perf-notes.md P136), checked on every plan.
struct MixedPrices {
  double step[7];
  double unit;
};
inline MixedPrices mixed_prices() {
  constexpr const char* kEnv = "NVFP4_PERSISTENT_MIXED_PRICES";
  MixedPrices m{};
  std::copy(std::begin(kWideMixedStep), std::end(kWideMixedStep), m.step);
  m.unit = kWideUnitSteps;
  const char* v = std::getenv(kEnv);
  if (v == nullptr || *v == '\0') return m;
  double x[8];
  const char* p = v;
  bool ok = true;
  for (int i = 0; i < 8 && ok; ++i) {
    char* end = nullptr;
    x[i] = std::strtod(p, &end);
    ok = end != p && (i < 7 ? x[i] > 0 && x[i] <= 4 : x[i] >= 0 && x[i] <= 100) && *end == (i < 7 ? ',' : '\0');
    p = end + (i < 7 ? 1 : 0);
  }
  if (!ok)
    throw std::invalid_argument(std::string(kEnv) + "=" + v +
                                ": must be 8 comma-separated numbers: the K-step prices of widths 64, 96, ..., 256 "
                                "(each in (0, 4]), then the per-unit cost in K steps (0 to 100)");
  std::copy(x, x + 7, m.step);
  m.unit = x[7];
  return m;
}
// Cut units (P125, balance.hpp wrapped_parts), group_gemm 2 x 256: what a writer part costs its
// CTA beyond a unit (its 128 KiB of FP32 sums stored, a fence and a flag) and an adder part (the
// sums read after its K loop in 8 dependent batches of L2 loads, add_partials: ~5 us in P121's
// trace), in full K steps; the fewest K steps of a part; and how much lower than free counts' the
// wrap's busiest CTA must be to be taken. NVFP4_PERSISTENT_PARTS=0|1 forces it off or on (1:
// wherever the plan allows parts at all).
inline constexpr double kPartWriterSteps = 3.0, kPartAdderSteps = 8.0, kPartGain = 0.02;
inline constexpr int kPartMinSteps = 8;
// group_gemm's 2 x 256 kernel that decodes its tokens itself (WideTokens, docs/perf-notes.md P123):
// phase 0's K steps (NVFP4_PERSISTENT_EARLY_STEPS forces 0 to kWideEarlyMax: below the ring's
// 6 stages, since phase 1's first copy fills the stage the consumers stage their stores through),
// and the rounds of a consumer warp's phase-1 share fetched at once.
inline constexpr int kWideEarlySteps = 4, kWideEarlyMax = 4, kWideBatch = 4;

// The CTA shape, by the number C of consumer warpgroups (2 or 3). The consumers' loop is
// issue-latency bound (docs/perf-notes.md, P4/P5: ~140 instructions per K step and warp at ~7.5
// cycles each), so a third warp per scheduler raises the rate per weight slot by ~10 %; but
// 192-slot tiles quantize differently over the SMs, and the runner picks C per shape.
template <int C, int T>
struct Cfg {
  static constexpr int kTokBytes = T * kBK * 2;         // T rows of 128 bytes, swizzled
  static constexpr int kRegs = T / 2 * kMT;  // accumulators per consumer thread: acc[(T/2) mt + 4j + r], j = n8 token block
  static constexpr int kStages = T == 128 ? 8 : 6;
  static constexpr int kThreads = 128 * (1 + C);        // + the producer warpgroup
  static constexpr int kSlots = 64 * kMT * C;           // weight slots per CTA (wgmma M side)
  static constexpr int kWBytes = kSlots * kBK / 2;      // 32-byte rows
  // Blocked scale atoms (128-row blocks) a tile's rows of one B can span: its first row sits at a
  // multiple of gcd(rows, 128) inside a block.
  template <int NB>
  static constexpr int kAtomsPerB = (128 - std::gcd(kSlots / NB, 128) + kSlots / NB + 127) / 128;
  template <int NB>
  static constexpr int kAtoms = NB * kAtomsPerB<NB>;
  static constexpr int kStageBytes = (kTokBytes + kWBytes + kAtoms<2> * kAtomBytes + 1023) / 1024 * 1024;
  static constexpr int kSmemBytes = kStages * kStageBytes + 1024;  // + room to align to 1024
  // Register budgets after setmaxnreg, per thread. Their sum over the CTA must not exceed what it
  // was launched with (65536 / kThreads each, rounded down to 8: __launch_bounds__(kThreads, 1)),
  // or setmaxnreg.inc waits forever.
  static constexpr int kProducerRegs = C == 2 ? 64 : 56;
  static constexpr int kConsumerRegs = C == 2 ? 216 : 152;
  static constexpr bool budgets_fit(int producer, int consumer) {
    return 128 * (producer + C * consumer) <= (65536 / kThreads) / 8 * 8 * kThreads;
  }
  static_assert(C == 2 || C == 3, "2 or 3 consumer warpgroups");
  static_assert(T == 128 || (T == 256 && C == 2), "256 tokens only with 2 consumers (registers)");
  static_assert(budgets_fit(kProducerRegs, kConsumerRegs), "setmaxnreg budgets exceed the launch allocation");
  static_assert(kStageBytes % 1024 == 0, "each stage's token tile stays 1024-byte aligned for the swizzle");
  static_assert(C * 128 * kRegs * 4 <= kStages * kStageBytes, "the split-K exchange reuses the ring");
};

// TMA descriptors, built in prepare. tok: FP16 workspace {K, L * M_pad}, box {64, 128}, 128-byte
// swizzle. w[b]: packed B / B2 bytes {K / 2, N, L}, box {32, 128 / NB}. out (group_gemm, where
// c_rows_aligned): C {N, M, L}, box {64, held_rows}, 128-byte swizzle (HeldTile); else unused.
struct Maps {
  CUtensorMap tok;
  CUtensorMap w[2];
  CUtensorMap out;
};
// The kernels' __grid_constant__ parameter: the descriptors, and in group_gemm's fused and
// decoder-CTA kernels (kHeld: at most kHeldGroups GEMMs) the group table too, which their
// scheduler reads in place (HeldRef, docs/perf-notes.md P118). (__grid_constant__ on another
// parameter changed gemm's code.)
struct MapsAndTable : Maps {
  HeldEntries groups;
};
// group_gemm's 2 x 256 kernel that decodes its tokens itself (kFused, P123): the tokens' sources
// and phases (WideTokens), read in place by a GEMM's index.
struct MapsAndWide : Maps {
  WideTokens wide;
};
template <bool kHeld, bool kWide = false>
using MapsFor = std::conditional_t<kHeld, MapsAndTable, std::conditional_t<kWide, MapsAndWide, Maps>>;
// Which of them a kernel takes: group_gemm's fused and decoder-CTA 2 x 128 kernels hold their group
// table (P118); its fused 2 x 256 kernel holds its tokens' phases (P123).
template <class Sched, int T, bool kFused, bool kStream>
constexpr bool held_table() {
  return kGroupSched<Sched> && (kFused || kStream) && T == 128;
}
template <class Sched, int T, bool kFused>
constexpr bool wide_fused() {
  return kGroupSched<Sched> && kFused && T == 256;
}

template <int NB>
using Slots = SlotMap<NB, 8>;

#if NVFP4_SM90A
// Shared-memory byte offsets, in a stage, of a consumer thread's first weight row (slot 8h + g of
// its warp's 16, h = 0) and of that row's scale, for the tile starting at output column n0. Atom
// kAtomsPerB * b + i holds the 128-row block of B_b starting at n0 / 128 * 128 + 128 i. The second
// row (h = 1) is a fixed distance away (kSecondRow), so a thread keeps two offsets, not four.
struct RowOffsets {
  int w, sf;
};
template <int NB, int C, int T>
__device__ __forceinline__ RowOffsets row_offsets(int consumer, int warp, int g, int t, int n0) {
  using Cf = Cfg<C, T>;
  const int slot = consumer * 64 + warp * 16 + g;
  const int op = Slots<NB>::op(slot), row = Slots<NB>::row(slot);
  const int from_atom0 = n0 % 128 + row;  // row counted from the first atom's start
  const int atom = op * Cf::template kAtomsPerB<NB> + from_atom0 / 128, r = from_atom0 % 128;
  return {Cf::kTokBytes + (op * (Cf::kSlots / NB) + row) * (kBK / 2) + 8 * t,
          Cf::kTokBytes + Cf::kWBytes + atom * kAtomBytes + (r % 32) * 16 + (r / 32) * 4 + t};
}
// Slot 8 + g against slot g of a warp's 16 (the warp's first slot is a multiple of 16, and a tile's
// first column n0 a multiple of 32: kSlots / NB is 64, 96, 128 or 192). gemm: the next 8 rows of
// B, in the same 32-row group of the same scale atom (row % 32 < 24 for slot g). dual_gemm
// (SlotMap<2, 8>): the same row of B2, kSlots / 2 rows and kAtomsPerB atoms further on.
template <int NB, int C, int T>
struct SecondRow {
  using Cf = Cfg<C, T>;
  static constexpr int w = NB == 1 ? 8 * (kBK / 2) : (Cf::kSlots / 2) * (kBK / 2);
  static constexpr int sf = NB == 1 ? 8 * 16 : Cf::template kAtomsPerB<2> * kAtomBytes;
};

// A consumer thread's data of one K step: the packed weights of its two rows (8h + g of its warp's
// 16 slots; word 0 = elements 0..7 of its scale block, word 1 = 8..15) in byte form
// (core/fp4_decode.cuh), and their scales.
struct StepWeights {
  fp4::E2m1Bytes w[2][2];  // [row h][word]
  __half2 sf[2];
};
// w and sf: the shared-memory addresses of the thread's first row and its scale in this stage.
template <int NB, int C, int T>
__device__ __forceinline__ StepWeights load_step(uint32_t w, uint32_t sf) {
  using Second = SecondRow<NB, C, T>;
  const uint2 w0 = sm90::lds_u32x2(w), w1 = sm90::lds_u32x2(w + Second::w);
  StepWeights x;
  x.w[0][0] = fp4::e2m1x8_bytes(w0.x);
  x.w[0][1] = fp4::e2m1x8_bytes(w0.y);
  x.w[1][0] = fp4::e2m1x8_bytes(w1.x);
  x.w[1][1] = fp4::e2m1x8_bytes(w1.y);
  x.sf[0] = fp4::e4m3_to_half2_bcast(sm90::lds_u8(sf));
  x.sf[1] = fp4::e4m3_to_half2_bcast(sm90::lds_u8(sf + Second::sf));
  return x;
}

// The A fragment of k16 slice j (0..3) of the step: elements {2j, 2j + 1} of the decode order of
// each row (core/fp4_decode.cuh), times the row's scale; rows g and g + 8 of the m64 tile.
__device__ __forceinline__ void decode_slice(const StepWeights& x, int j, uint32_t (&frag)[4]) {
  uint32_t v[2][2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const fp4::E2m1Bytes& word = x.w[h][j / 2];
    if ((j & 1) == 0)
      fp4::e2m1x8_to_raw_half2x2<0>(word, v[h][0], v[h][1]);
    else
      fp4::e2m1x8_to_raw_half2x2<1>(word, v[h][0], v[h][1]);
    v[h][0] = fp4::hmul2_u32(v[h][0], x.sf[h]);
    v[h][1] = fp4::hmul2_u32(v[h][1], x.sf[h]);
  }
  frag[0] = v[0][0];
  frag[1] = v[1][0];
  frag[2] = v[0][1];
  frag[3] = v[1][1];
}

// One wgmma m64nNk16 of slice j on the stage's token tile (128-byte swizzled rows), whose
// descriptor's low word is tok_lo (sm90::desc_kmajor_sw128_lo; slice j starts 32 j bytes on): its
// first N tokens (N = the tile's T, or a narrow tile's width, narrow_width), into acc's first N / 2.
template <int N, int R>
__device__ __forceinline__ void mma_slice(uint32_t tok_lo, int j, const uint32_t (&frag)[4], float (&acc)[R]) {
  const uint64_t desc = sm90::desc_from_lo(tok_lo + 2 * j);
  if constexpr (N == 64)
    sm90::wgmma_m64n64k16_rs(acc, frag, desc, 1);
  else if constexpr (N == 96)
    sm90::wgmma_m64n96k16_rs(acc, frag, desc, 1);
  else if constexpr (N == 112)
    sm90::wgmma_m64n112k16_rs(acc, frag, desc, 1);
  else if constexpr (N == 128)
    sm90::wgmma_m64n128k16_rs(acc, frag, desc, 1);
  else if constexpr (N == 160)
    sm90::wgmma_m64n160k16_rs(acc, frag, desc, 1);
  else if constexpr (N == 192)
    sm90::wgmma_m64n192k16_rs(acc, frag, desc, 1);
  else if constexpr (N == 224)
    sm90::wgmma_m64n224k16_rs(acc, frag, desc, 1);
  else
    sm90::wgmma_m64n256k16_rs(acc, frag, desc, 1);
}
#endif

// group_gemm: the wgmma width (tokens) of a tile of T tokens with `live` of them, for `narrow`
// (GroupScheduler::narrow) and C consumer warpgroups. 128-token tiles: 64, or 96 (narrow 96, 2
// consumers: with 3, a loop of n96 as well made ptxas spill at the 128-register cap), else 128
// (P62). 256-token tiles (2 consumers), narrow not 0: the live tokens rounded up to 32, at least 64
// (P78). The producer copies that many token rows (P64), the consumers run the K loop of that
// width, the host prices the tile by it (P63).
__host__ __device__ __forceinline__ int narrow_width(int live, int narrow, int consumers, int tokens) {
  if (tokens == 256) return narrow == 0 ? 256 : std::min(256, std::max(64, (live + 31) / 32 * 32));
  if (narrow != 0 && live <= 64) return 64;
  if (consumers == 2 && narrow == 96 && live <= 96) return 96;
  return 128;
}
// A tile's live tokens: those of its GEMM from m0 on, at most its height (GemmEntry::tile_rows).
// kBalanced false (every kernel but the kBal one, which alone runs balanced tiles): the GEMM's from
// m0 on, as before P219 (the height's test changed ptxas's K loops, and spilled in the 2 x 256
// fused kernel).
template <bool kBalanced = true>
__host__ __device__ __forceinline__ int tile_live(const GemmEntry& e, int m0) {
  if constexpr (kBalanced) return std::min(e.tile_rows, static_cast<int>(e.args.m) - m0);
  return static_cast<int>(e.args.m) - m0;
}
// The wgmma width of a tile of GEMM e from token m0 on, in a kernel of C consumers and T-token tiles:
// narrow_width_bal (tile_rows.hpp: 112 too) in the kBal kernel, else narrow_width for the launch's
// `narrow` (in the other kernels the 112 test changed ptxas's K loops, P219).
template <bool kBal, int C, int T>
__host__ __device__ __forceinline__ int tile_width(const GemmEntry& e, int m0, int narrow) {
  if constexpr (kBal) return narrow_width_bal(tile_live<kBal>(e, m0));
  return narrow_width(tile_live<kBal>(e, m0), narrow, C, T);
}
// The widths a T-token tile of C consumers may run, from 64 in steps of 32 (16 in the kBal kernel,
// whose tiles may run 112 too). Their token boxes below T are the narrow_tok maps: each GEMM's of
// 64, 96, ... rows (kNarrowMaps a GEMM), then, for 128-token tiles, every GEMM's of 112 rows.
template <int W, int T, int C, bool kBal>
constexpr bool width_taken() {
  return W == T ||
         (T == 256 ? W >= 64 && W % 32 == 0 && W < T : W == 64 || ((W == 96 || (W == 112 && kBal)) && C == 2));
}
// Calls f(std::integral_constant<int, width>) for a tile's width: one copy of f per width taken.
template <int T, int C, bool kBal, int W = 64, class F>
__device__ __forceinline__ void with_width(int width, F&& f) {
  if constexpr (W >= T) {
    f(std::integral_constant<int, T>{});
  } else {
    if constexpr (width_taken<W, T, C, kBal>()) {
      if (width == W) return f(std::integral_constant<int, W>{});
    }
    with_width<T, C, kBal, W + (kBal ? 16 : 32)>(width, f);
  }
}

// The `persistent` kernels that can decode the tokens in their main launch (TokenFuse): gemm's,
// and group_gemm's instantiation with kFused (P74). Compiled into dual_gemm's kernels, the
// (unused) code slowed them by up to 13 % (P71), so group_gemm's other kernels leave it out too.
template <int NB, class Sched, bool kFused>
constexpr bool fusable_tokens() {
  return NB == 1 && (std::is_same_v<Sched, SingleScheduler> || kFused);
}

// group_gemm's held tile (P80, P84): a tile with more work after it in its CTA goes out through
// its last K step's ring stage by passes of held_rows tokens, the most of T, halving, whose
// C x 64 columns of FP16 fit the stage. Each consumer warpgroup writes its 64 output columns of a
// pass into a region of its own (HeldTile) and copies it out itself: one TMA tensor store (the
// group's Maps::out, box {64, held_rows}) where C's rows are 16-byte aligned (c_rows_aligned),
// else by 16-byte vectors.
__host__ __device__ constexpr int held_rows(int tokens, int stage_bytes, int consumers) {
  int rows = tokens;
  while (rows > 8 && consumers * rows * 128 > stage_bytes) rows /= 2;
  return rows;
}
#if NVFP4_SM90A
// One consumer warpgroup's 64 columns x kRows tokens in its region of the held stage (kRows x 128
// bytes, 1024-byte aligned), as a TMA box {64, kRows} with the 128-byte swizzle lays it out: the
// 16-byte chunk c of row r at chunk c ^ r % 8. The 8 rows of an stmatrix then fall in 8 different
// chunks (one wavefront), and one TMA store copies the region to C.
template <int kRows>
struct HeldTile {
  static constexpr int kBytes = kRows * 128;
  uint8_t* region;
  uint32_t lane_row;  // row lane % 8, the warp's first column block (chunk 2 warp): stmatrix's row address
  __device__ __forceinline__ HeldTile(uint8_t* region_, int warp, int lane)
      : region(region_),
        lane_row(sm90::smem_addr(region_) + static_cast<uint32_t>((lane % 8) * 128 + (((2 * warp) ^ (lane % 8)) << 4))) {}
  // As StagedTile::block: tokens dm + 2t (a) and + 1 (b) of the warpgroup's column 16 warp + 8 second + g
  // (dm a multiple of 8 below kRows; the warp's second column block is the lane's chunk ^ 1).
  __device__ __forceinline__ void block(int dm, bool second, float a, float b) const {
    sm90::stmatrix_x1_trans((second ? lane_row ^ 16u : lane_row) + static_cast<uint32_t>(dm * 128), a, b);
  }
  // Rows [0, rows) to C rows m0.., columns n0..n0 + 63 (those inside C), by the warpgroup's 128
  // threads (wtid), after a barrier over them that follows every block(): where C's rows are not
  // 16-byte aligned (no TMA descriptor).
  __device__ __forceinline__ void copy_out(const OutView& o, int64_t l, int64_t m0, int64_t n0, int rows,
                                           int wtid) const {
    const bool vectors = c_rows_aligned(o.c, o.n);
    for (int i = wtid; i < rows * 8; i += 128) {
      const int r = i / 8, c = i % 8;
      store_vec8(o, l, m0 + r, n0 + 8 * c, *reinterpret_cast<const uint4*>(region + r * 128 + ((c ^ (r % 8)) << 4)),
                 vectors);
    }
  }
};
#endif
// f(std::integral_constant<int, i>) for i = 0 .. N - 1, in order.
template <int N, int I = 0, class F>
__device__ __forceinline__ void static_for(F&& f) {
  if constexpr (I < N) {
    f(std::integral_constant<int, I>{});
    static_for<N, I + 1>(f);
  }
}

// The scheduler a kernel reads: its parameter itself (a copy changed gemm's code), or (kHeld) the
// same over the group table in the parameters (MapsAndTable::groups, HeldRef).
template <bool kHeld, class Sched, class M>
__device__ __forceinline__ decltype(auto) kernel_scheduler(const Sched& s, const M& maps) {
  if constexpr (kHeld)
    return s.on(HeldRef{&maps.groups});
  else
    return (s);
}

// Sched: SingleScheduler (gemm, dual_gemm; TMA descriptors in `maps`) or GroupScheduler
// (group_gemm; group g's descriptors at table[g] in global memory).
// kGlobal: a data-parallel split-K launch without clusters, its partial sums through L2
// (global_split_reduce; `persistent` gemm, docs/perf-notes.md P73). kFused: group_gemm's kernel
// that decodes the tokens itself (fusable_tokens, P74). kStream: gemm's (and group_gemm's 2 x 128,
// P108) kernel whose CTAs from fuse.main_ctas on decode the tokens while the others run one unit
// each (decode_token_stream, P104); its token warp waits for them group by group.
// kBal: group_gemm's decoder-CTA 2 x 128 kernel for plans whose tiles have balanced heights and run
// n112 as well (P219): a kernel of its own, since that code rescheduled the other kernels' K loops
// (+1.7-3.4 % on the G=2 cases).
template <int NB, int C, int T, class Sched, bool kGlobal = false, bool kFused = false, bool kStream = false,
          bool kBal = false>
__global__ void __launch_bounds__(Cfg<C, T>::kThreads, 1)
    wgmma_gemm_kernel(const __grid_constant__ MapsFor<held_table<Sched, T, kFused, kStream>(),
                                                      wide_fused<Sched, T, kFused>()> maps,
                      const Maps* __restrict__ table,
                      const CUtensorMap* __restrict__ narrow_tok, const Sched sched_arg, const WorkPlan wp,
                      const TokenFuse fuse,
                      const TokenGroupsFor<held_table<Sched, T, kFused, kStream>()> token_groups) {
#if NVFP4_SM90A
  // group_gemm's fused and decoder-CTA 2 x 128 kernels read the group table from their parameters
  // (maps.groups, P118): a CTA's first unit then needs no load from global memory.
  const auto& sched = kernel_scheduler<held_table<Sched, T, kFused, kStream>()>(sched_arg, maps);
  // group_gemm's 2 x 256 kernel decoding its tokens in two phases (WideTokens, P123).
  constexpr bool kWideFused = wide_fused<Sched, T, kFused>();
  using Cf = Cfg<C, T>;
  constexpr int kStages = Cf::kStages, kTokBytes = Cf::kTokBytes, kRegs = Cf::kRegs;
  constexpr int kConsumers = C, kWBytes = Cf::kWBytes, kStageBytes = Cf::kStageBytes;
  constexpr int kAtoms = Cf::template kAtoms<NB>, kAtomsPerB = Cf::template kAtomsPerB<NB>;
  // group_gemm: a partly filled tile runs narrow (narrow_width): its token rows copied by the box
  // of that many rows (group g's narrow_tok[kNarrowMaps g + width / 32 - 2]; 112: after them all),
  // its K loop on wgmmas that wide. Its live tokens: tile_live (a balanced tile's height, P219, or
  // the GEMM's end).
  constexpr bool kNarrow = kGroupSched<Sched>;
  constexpr bool kBalanced = kBal;  // tiles of balanced heights, on n112 as well (P219)
  static_assert(!kBal || (kNarrow && kStream && T == 128 && C == 2),
                "balanced tiles: group_gemm's decoder-CTA 2 x 128 kernel only");
  // group_gemm: a tile with more work after it goes out through a held ring stage (P80, below).
  constexpr bool kHeldPath = kGroupSched<Sched>;
  // The 2 x 256 kernels' last unsplit tile goes out through its held stage too, not staged through
  // the whole ring: G=8 N=7168 -0.5 % (docs/perf-notes.md P140); the 2 x 128 tiles' two held passes
  // were slower than their one staged copy (G=2 [128,384] +3 %).
  constexpr bool kLastHeld = kHeldPath && T == 256;
  constexpr int kNarrowMaps = T / 32 - 2;
  // Register budgets after setmaxnreg (Cfg). group_gemm's 256-token kernel, with a K loop for each
  // of its seven widths, spilled at 216 per consumer thread (40 bytes with two widths, 176 with
  // all): its consumers get 232, its producer 40 (no spills there either, P78).
  constexpr bool kWideGroup = kNarrow && T == 256;
  // group_gemm's 2 x 256 kernel that decodes its tokens itself runs plans whose order may cut
  // units in two K ranges (P125, balance.hpp wrapped_parts); no other kernel has the parts' code
  // (in the 2 x 256 pre-pass kernel, merely compiled in, it cost G=8 N=7168 1.4 %).
  constexpr bool kParts = kWideFused;
  constexpr int kProducerRegs = kWideGroup ? 40 : Cf::kProducerRegs;
  constexpr int kConsumerRegs = kWideGroup ? 232 : Cf::kConsumerRegs;
  static_assert(Cf::budgets_fit(kProducerRegs, kConsumerRegs), "setmaxnreg budgets exceed the launch allocation");
  extern __shared__ uint8_t smem_raw[];
  __shared__ uint64_t bars[2 * kStages];  // full[s], then empty[s]: one array, a fixed distance apart
  uint64_t* const full = bars;
  uint64_t* const empty = bars + kStages;
  // Bytes from full[s] to empty[s], and the ring's size: the issuing and consuming loops carry
  // shared-memory addresses from stage to stage and wrap them by these.
  constexpr uint32_t kEmptyOff = sizeof(uint64_t) * kStages, kRingBytes = kStages * kStageBytes;
  // 2-rank split-K by pushing (push_reduce2): the peer's partial sums have landed / the peer's ring
  // is free for ours.
  __shared__ uint64_t recv_full, peer_ready;
  // The tokens decoded in this launch (TokenFuse): this CTA's decode is stored and counted, and
  // the count every CTA of the launch reaches.
  __shared__ uint64_t tokens_counted;
  __shared__ unsigned long long tokens_target;
  // kWideFused: every consumer thread has stored its share of phase 0 / phase 1.
  __shared__ uint64_t wide_stored[2];
  __shared__ int wide_dsts[kWideFused ? kConsumers * 4 : 1][32];  // a consumer warp's chunks being stored
  constexpr bool kFusable = fusable_tokens<NB, Sched, kFused>();
  // The ring from the first 1024-byte boundary (the swizzle pattern repeats every 1024 bytes). An
  // offset added to smem_raw, not an integer round trip, keeps the pointer in the shared space
  // (LDS rather than generic loads).
  uint8_t* ring = smem_raw + ((1024u - (sm90::smem_addr(smem_raw) & 1023u)) & 1023u);
  const int warpgroup = threadIdx.x / 128;
  if (threadIdx.x == 0) NVFP4_STAMP(kTrEntry);
  const int splits = sched.ts.splits;
  constexpr bool kClusters = !kGlobal;  // a split tile's ranks are one cluster
  if constexpr (kStream) {
    static_assert(NB == 1 && C == 2 && T == 128 && !kGlobal && !kFused,
                  "decoder CTAs: gemm's and group_gemm's data-parallel 2 x 128 kernels only");
    if (static_cast<int>(blockIdx.x) >= fuse.main_ctas) {  // a decoder CTA (whole clusters of them): no unit
      const uint32_t stage = sm90::smem_addr(ring) + (threadIdx.x / 32) * 4096;
      if constexpr (kGroupSched<Sched>)  // the GEMMs' sources from the parameters
        decode_token_stream<kGroupStreamParts>([&](int g) { return param_at(token_groups.group, g); }, fuse, splits,
                                               stage);
      else
        decode_token_stream<1>([&](int) -> const GemmEntry& { return sched.e; }, fuse, splits, stage);
      return;
    }
  }

  const int issuers = sched.ts.issuers;
  // kStream: the K steps of its unit whose tokens each CTA decodes itself (TokenFuse::local_groups,
  // P105); only where the tokens have an issuing warp of their own (2 or 3 issuers).
  [[maybe_unused]] const int stream_local_steps = kStream && issuers >= 2 ? fuse.local_groups * kStreamSteps : 0;
  // kStream: the consumers' loads of their first unit's local tokens (P105). In gemm they are
  // issued at entry, before the barriers are set up and the registers reallocated (P112): after
  // the set-up they came ~1.1 us after entry, and the stores, not the weights, set the first K
  // step (gemm 128x7168x2048 -2.3 % on an H100). In group_gemm, issued at entry they cost G=2
  // [192,320] 0.7-0.9 % (its weights' first copies then waited for their cold TMA descriptors,
  // P114), with the descriptors prefetched (below) gained nothing, and with the group table in the
  // parameters (P118) cost 0.5 %: it fetches after the set-up.
  constexpr bool kEarlyFetch = kStream && !kGroupSched<Sched>;
  struct NoLocalTokens {};
  [[maybe_unused]] std::conditional_t<kStream, LocalTokens<2 * 128, 128, Cf::kStages>, NoLocalTokens> local;
  [[maybe_unused]] int local_steps = 0;  // of the first unit, decoded by the consumers
  // Fetches them; true if the CTA has a unit (local_steps of it are then decoded locally).
  [[maybe_unused]] const auto fetch_local = [&] {
    if constexpr (kStream) {
      WorkCursor c0 = work_start(wp);
      Tile t0;
      if (!next_work<false, kBalanced>(sched, wp, c0, t0)) return false;
      local_steps = std::min(stream_local_steps, t0.k_step_end - t0.k_step_begin);
      if constexpr (kGroupSched<Sched>)
        local.fetch(param_at(token_groups.group, t0.group), t0, local_steps, threadIdx.x - 128);
      else
        local.fetch(sched.e, t0, local_steps, threadIdx.x - 128);
      return true;
    }
    return false;
  };
  const bool split_start = kEarlyFetch && stream_local_steps > 0;
  if constexpr (kEarlyFetch) {
    if (split_start && warpgroup > 0) fetch_local();
  }
  if constexpr (kGroupSched<Sched>) {
    // group_gemm's TMA descriptors sit in global memory (`table`), and the issuing warps' first
    // copies fetched them cold: launches of at most kMaxStreamGroups GEMMs (the 2 x 128 kernels of
    // the fused and decoder-CTA plans among them) prefetch each GEMM's weights and tokens
    // descriptors at entry (P115: G=2 [128,384] -1.7 % on an H200; for G=8, 16 of them cost
    // G=8 N=7168 0.8 %).
    if (threadIdx.x < 2 * kMaxStreamGroups) {
      const int g = threadIdx.x / 2;
      if (sched.groups <= kMaxStreamGroups && g < sched.groups)
        sm90::tma_prefetch_desc(threadIdx.x % 2 == 0 ? static_cast<const void*>(&table[g].w[0]) : &table[g].tok);
    }
  }
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      sm90::mbar_init(&full[s], issuers);  // each issuing thread announces its bytes
      sm90::mbar_init(&empty[s], kConsumers * 128);  // every consumer thread (see the consumers' loop)
    }
    sm90::mbar_init(&recv_full, 1);
    sm90::mbar_init(&peer_ready, 1);
    if constexpr (kFusable) sm90::mbar_init(&tokens_counted, 1);
    if constexpr (kWideFused) {
      sm90::mbar_init(&wide_stored[0], kConsumers * 128);
      sm90::mbar_init(&wide_stored[1], kConsumers * 128);
    }
    sm90::mbar_init_fence();
  }
  if (split_start) {
    // The barriers' initialisation, made visible by warp 0's arrival: the producer warpgroup waits
    // for it on barrier 5, the consumers on barrier 6; neither waits for the other's start.
    constexpr int kInitCount = kConsumers * 128 + 32;
    if (warpgroup == 0) {
      if (threadIdx.x < 32) asm volatile("bar.arrive 6, %0;" ::"n"(kInitCount) : "memory");
      asm volatile("bar.sync 5, 128;" ::: "memory");
    } else {
      asm volatile("bar.sync 6, %0;" ::"n"(kInitCount) : "memory");
    }
  } else {
    __syncthreads();
  }
  // With a split, the cluster's barriers must be initialised before any CTA uses a peer's: every
  // thread arrives here and waits before its first remote access (or before it exits).
  // kGlobal with push: pairs of ranks in clusters of 2 (pair_split_reduce, P138).
  if ((kClusters || sched.ts.push) && splits > 1) sm90::cluster_arrive_relaxed();

  // group_gemm's fused share over the producer warpgroup's four warps too (P167): where the blocks
  // are 384 per CTA or fewer (G=2 [128,384]: 49152 for 128 CTAs) no thread takes two, whose second
  // cost a thread ~0.5 us (P166); its warps are the share's last ones of each CTA (after the
  // consumers'), staged through stage 0's token tile beside theirs, and meet them at barrier 7.
  constexpr bool kProducerShare = kFusable && !kWideFused && held_table<Sched, T, kFused, kStream>();
  constexpr int kShareThreads = kConsumers * 128 + (kProducerShare ? 128 : 0);
  static_assert(kShareThreads / 32 * 1024 <= kTokBytes, "the share's staging fits stage 0's token tile");
  if (warpgroup == 0) {  // ---- producer ----
    sm90::setmaxnreg_dec<kProducerRegs>();
    if constexpr (kProducerShare) {
      if (fuse.arrivals != nullptr) {
        const int w = kConsumers * 4 + static_cast<int>(threadIdx.x / 32);
        decode_token_share<1, true>(token_groups, fuse, dealt_tid(w, static_cast<int>(threadIdx.x % 32)),
                              int64_t{gridDim.x} * kShareThreads, sm90::smem_addr(ring) + w * 1024);
        sm90::fence_proxy_async_smem();  // the staging's writes before the token copies into that memory
        asm volatile("bar.arrive 7, %0;" ::"n"(kShareThreads) : "memory");
      }
    }
    // Producer warp r < issuers runs role r's loop over every K step, all its lanes waiting on
    // `empty`, lane 0 arriving and issuing the copies: one thread issuing all of them was the data
    // path's limit (docs/perf-notes.md P22: it spent ~85 % of its time issuing and ~15 % waiting
    // for a free stage). Measured on two H100s (P23): tokens | weights and atoms no faster than
    // one thread; tokens | weights | atoms 5-12 % faster on the dual_gemm shapes, 0.6-7 % on gemm
    // and group_gemm depending on the machine. The whole warp in the loop, its role through a
    // shuffle from lane 0 (so that ptxas knows it is uniform over the warp), keeps the copies'
    // operands in uniform registers: no R2UR and lane loop per copy, 5 % on the long shapes (P54).
    const int role = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x) / 32, 0);
    const bool leader = threadIdx.x % 32 == 0;
    // One issuing warp's loop over its work, for its roles (bool, or std::bool_constant for a
    // loop of its own per role, docs/perf-notes.md P39).
    const auto issue = [&](auto tok_role, auto w_role, auto sf_role) {
      const bool tok = tok_role, w = w_role, sf = sf_role;
      if (table == nullptr && leader) {
        if (tok) sm90::tma_prefetch_desc(&maps.tok);
        if (w)
          for (int b = 0; b < NB; ++b) sm90::tma_prefetch_desc(&maps.w[b]);
      }
      // kWideFused: phase 0, this CTA's stores counted here, then every CTA's. (The 2 x 128 fused
      // kernels wait for their count in the loop, just before the first copy: `hold` below.)
      if constexpr (kWideFused) {
        if (tok && fuse.arrivals != nullptr) {
          if (leader) {
            sm90::mbar_wait(&wide_stored[0], 0);
            wait_tokens(fuse.arrivals, count_arrival(fuse.arrivals, gridDim.x));
          }
          __syncwarp();
        }
      } else if constexpr (kFusable && kStream) {
        // gemm's decoder-CTA kernel never fuses (arrivals null), but carries this wait where the
        // others wait in the loop: moved there, it cost that kernel's K loop an instruction per
        // step (ptxas; gemm 128x7168x16384 +1 %, P131).
        if (tok && fuse.arrivals != nullptr) {
          if (leader) {
            sm90::mbar_wait(&tokens_counted, 0);
            wait_tokens(fuse.arrivals, tokens_target);
          }
          __syncwarp();
        }
      }
      // kWideFused: the copies left before phase 1's count is needed (its wait comes before the
      // copy that finds this 0); -1 elsewhere.
      [[maybe_unused]] int until_late = -1;
      if constexpr (kWideFused) {
        if (tok && fuse.arrivals != nullptr) until_late = maps.wide.early_steps;
      }
      // kWideFused: phase 1 stored by this CTA's consumers, counted, and (wait) counted by every CTA.
      [[maybe_unused]] const auto count_late = [&](bool wait) {
        if constexpr (kWideFused) {
          if (leader) {
            sm90::mbar_wait(&wide_stored[1], 0);
            const unsigned long long target = count_arrival(maps.wide.late, gridDim.x);
            if (wait) wait_tokens(maps.wide.late, target);
          }
          __syncwarp();
        }
      };
      // Fused launches (TokenFuse::weights_ahead, P126): the copies of the weights' and atoms' roles
      // left before they wait for this CTA's share of the decode to be counted; -1: no wait.
      // The token role's: 0, its first copy waits for every CTA's count (TokenFuse), after the
      // first unit's set-up (next_work, its entry and atoms: ~0.6-0.8 us that ran after the wait
      // when it came first, P130).
      [[maybe_unused]] int hold = -1;
      if constexpr (kFusable && !kWideFused) {
        if (fuse.arrivals != nullptr) {
          if (tok) {
            if constexpr (!kStream) hold = 0;
          } else if (fuse.weights_ahead > 0) {
            hold = fuse.weights_ahead;
          }
        }
      }
      [[maybe_unused]] unsigned stream_launch = 0;  // kStream: this launch's n + 1 (stream_target)
      [[maybe_unused]] int local_steps = 0;       // kStream: the first unit's steps the consumers decode
      if constexpr (kStream) {
        if (tok) stream_launch = stream_target(fuse);
        local_steps = stream_local_steps;
      }
      const uint32_t bytes = (tok ? kTokBytes : 0) + (w ? kWBytes : 0) + (sf ? kAtoms * kAtomBytes : 0);
      // The stage and its `full` barrier as shared-memory addresses carried from step to step (the
      // generic pointers were converted again for every copy: docs/perf-notes.md P42); `empty` is
      // kStages barriers after `full`.
      uint32_t st = sm90::smem_addr(ring), full_b = sm90::smem_addr(full);
      int s = 0;
      uint32_t phase = 0;
      const auto next_stage = [&] {  // wrapping at the ring's end (`full` is kEmptyOff bytes long)
        st += kStageBytes;
        full_b += 8;
        if (++s == kStages) {
          s = 0;
          phase ^= 1;
          st -= kRingBytes;
          full_b -= kEmptyOff;
        }
      };
      WorkCursor cur = work_start(wp);
      Tile tile;
      [[maybe_unused]] bool traced_first = false;
      while (next_work<kParts, kBalanced>(sched, wp, cur, tile)) {
#if NVFP4_TRACE
        if (leader && w && !traced_first) NVFP4_STAMP(kTrWNextWork);
#endif
        const GemmEntry& e = sched.entry(tile.group);
        const Maps& mp = table == nullptr ? maps : table[tile.group];
        const SfGeometry geom{e.args.n, e.args.k / 16, e.args.l};
        const int tok_row = static_cast<int>(tile.l * e.m_pad + tile.m0);
        const void* tok_map = &mp.tok;
        uint32_t tile_bytes = bytes;
        if constexpr (kNarrow) {
          const int width = tile_width<kBalanced, C, T>(e, tile.m0, sched.narrow);
          if (tok && width < T) {
            tok_map = narrow_tok + kNarrowMaps * tile.group + (width / 32 - 2);
            if constexpr (kBalanced) {
              if (width == 112) tok_map = narrow_tok + kNarrowMaps * sched.groups + tile.group;
            }
            tile_bytes -= (T - width) * kBK * 2;
          }
        }
        // Atom a (see row_offsets); past the last 128-row block of B it rereads that block (its
        // rows there are never stored).
        int64_t atom[kAtoms];
#pragma unroll
        for (int a = 0; a < kAtoms; ++a) {
          const int64_t first = tile.n0 / 128 * 128 + 128 * (a % kAtomsPerB);
          atom[a] = geom.blocked_offset(std::min<int64_t>(first, (geom.row_blocks() - 1) * 128), 0, tile.l);
        }
        int ks = tile.k_step_begin;
#if NVFP4_TRACE
        if (leader && w && !traced_first) NVFP4_STAMP(kTrWSetup);
#endif
        [[maybe_unused]] int decoded_end = ks;  // kStream: the steps before it are decoded
        if constexpr (kStream) {
          // The CTA's first unit's first local_steps steps: the consumers decode their tokens into
          // the ring themselves (P105), so their `full` barriers complete without a token copy.
          if (tok && !w && !sf && local_steps > 0) {
            for (const int local_end = std::min(ks + local_steps, tile.k_step_end); ks < local_end; ++ks) {
              sm90::mbar_wait(full_b + kEmptyOff, phase ^ 1);
              if (leader) sm90::mbar_arrive(full_b);
              __syncwarp();
              next_stage();
            }
            decoded_end = ks;
            local_steps = 0;
          }
        }
        for (; ks < tile.k_step_end; ++ks) {
          if constexpr (kWideFused) {
            if (tok && until_late-- == 0) count_late(true);
          }
          if constexpr (kFusable && !kWideFused) {
            if (hold >= 0 && hold-- == 0) {
              sm90::mbar_wait(&tokens_counted, 0);  // all lanes, as on `empty`
              if constexpr (!kStream) {
                if (tok) {  // every CTA's count (all lanes poll; one request per poll)
                  wait_tokens(fuse.arrivals, tokens_target);
                  if (NVFP4_TRACE && leader) NVFP4_STAMP(kTrTokWait);
                }
              }
              if (NVFP4_TRACE && leader && w) NVFP4_STAMP(kTrWHeld);
            }
          }
          if constexpr (kStream) {
            if (tok && ks >= decoded_end)
              decoded_end = wait_stream(fuse.ready + param_at(fuse.ready_at, tile.group), tile.k_step_begin, tile.k_step_end, ks,
                                        stream_done(fuse, stream_launch, tile.group));
          }
          sm90::mbar_wait(full_b + kEmptyOff, phase ^ 1);
          if (leader) {
            sm90::mbar_arrive_expect_tx(full_b, tile_bytes);
            if (tok) sm90::tma_load_2d(st, tok_map, full_b, ks * kBK, tok_row);
            if (w) {
#pragma unroll
              for (int b = 0; b < NB; ++b)
                sm90::tma_load_3d(st + kTokBytes + b * (kWBytes / NB), &mp.w[b], full_b, ks * (kBK / 2), tile.n0,
                                  tile.l);
            }
            if (sf) {
#pragma unroll
              for (int a = 0; a < kAtoms; ++a)
                sm90::bulk_load(st + kTokBytes + kWBytes + a * kAtomBytes,
                                e.args.sfb_blk[a / kAtomsPerB] + atom[a] + int64_t{ks} * kAtomBytes, kAtomBytes,
                                full_b);
            }
          }
          __syncwarp();
#if NVFP4_TRACE
          if (leader && ks == tile.k_step_begin && !traced_first) {
            traced_first = true;
            if (tok) NVFP4_STAMP(kTrTokFirst);
            if (w) NVFP4_STAMP(kTrWFirst);
          }
#endif
          next_stage();
        }
      }
      // A CTA whose copies never reached phase 1 still counts it: every CTA's count is awaited.
      if constexpr (kWideFused) {
        if (tok && until_late >= 0) count_late(false);
      }
    };
    if (role < issuers) {
      bool issued = false;
      // group_gemm and gemm's kStream kernel only: in group_gemm the per-role loops won 2-7 % where
      // CTAs run several units (P39); kStream keeps its token waits out of the other roles' loops. In
      // the gemm and dual_gemm kernels, measured under eager loading (P41), they took 3.8 % off
      // gemm 128x7168x16384 but cost the other shapes 2-4 %, and merely compiling them in cost the
      // shared loop 0.2-4.9 % (docs/perf-notes.md P39, P41).
      if constexpr (kGroupSched<Sched> || kStream) {
        using Yes = std::true_type;
        using No = std::false_type;
        bool role_loops = true;  // kStream: the token loop's waits kept out of the others (P104)
        if constexpr (kGroupSched<Sched>) role_loops = sched.role_loops;
        if (issuers == 3 && role_loops) {
          issued = true;
          if (role == 0)
            issue(Yes{}, No{}, No{});
          else if (role == 1)
            issue(No{}, Yes{}, No{});
          else
            issue(No{}, No{}, Yes{});
        }
      }
      if (!issued) issue(role == 0, issuers == 1 || role == 1, issuers == 1 || role == issuers - 1);
    }
    __syncwarp();
    if ((kClusters || sched.ts.push) && splits > 1) sm90::cluster_wait();
    if (kClusters && splits > 1 && !(splits == 2 && sched.ts.push)) {  // splitk_reduce's two cluster barriers count every thread
      cluster_sync_relaxed();  // the producer publishes nothing there
      cluster_sync_relaxed();
    }
    return;
  }

  // ---- consumers ----
  // kWideFused: the share of the token decode first, under the launch's register budget (after
  // setmaxnreg it made ptxas spill in the K loops, P123).
  if constexpr (kWideFused) {
    if (fuse.arrivals != nullptr) {  // this CTA's share of both phases (WideTokens, P123)
      const WideTokens& w = maps.wide;
      // Staged through 4 KiB per consumer warp of the token tile of the stage that phase 1's first
      // copy fills (stage early_steps: the copies before it leave at phase 0's count, that one
      // only after every consumer's arrival for phase 1, which follows its fence below).
      static_assert(kConsumers * 4 * 4096 <= kTokBytes, "the consumers' staging fits a stage's token tile");
      const uint32_t share_stage =
          sm90::smem_addr(ring) + (w.early_steps % kStages) * kStageBytes + ((threadIdx.x - 128) / 32) * 4096;
      decode_wide_share<kWideBatch>(w, static_cast<int>((threadIdx.x - 128) / 32 * gridDim.x + blockIdx.x),
                                    static_cast<int>(gridDim.x) * kConsumers * 4, reinterpret_cast<uint4*>(fuse.out),
                                    share_stage, wide_dsts[(threadIdx.x - 128) / 32], sm90::smem_addr(&wide_stored[0]),
                                    sm90::smem_addr(&wide_stored[1]));
    }
  }
  sm90::setmaxnreg_inc<kConsumerRegs>();
  const int consumer = warpgroup - 1, ctid = threadIdx.x - 128;
  if (ctid == 0) NVFP4_STAMP(kTrConsumerStart);
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  // Named barrier 1 over the consumer warpgroups only (the producer may still be loading).
  const auto consumers_sync = [] { asm volatile("bar.sync 1, %0;" ::"n"(kConsumers * 128) : "memory"); };
  if constexpr (kFusable && !kWideFused) {
    if (fuse.arrivals != nullptr) {  // this CTA's share of the token pre-pass's work (TokenFuse)
      const int64_t threads = int64_t{gridDim.x} * kShareThreads;
      // The chunks pass through 1 KiB per consumer warp of stage 0's token tile, which no copy
      // writes before every CTA has counted (below), after the fence.
      const uint32_t share_stage = sm90::smem_addr(ring) + (ctid / 32) * 1024;
      if constexpr (held_table<Sched, T, kFused, kStream>()) {
        // group_gemm: the grid's consumer warps dealt to the CTAs in turn (dealt_tid; gemm's kernels
        // keep the CTA-major order, whose K loops' schedule the change moved, P165).
        decode_token_share<kFuseBatch, true>(token_groups, fuse, dealt_tid(ctid / 32, ctid % 32), threads, share_stage);
      } else {
        decode_token_share<kFuseBatch, true>(sched.entry(0), fuse, int64_t{blockIdx.x} * (kConsumers * 128) + ctid,
                                             threads, share_stage);
      }
      if (ctid == 0) NVFP4_STAMP(kTrShareStored);
      sm90::fence_proxy_async_smem();  // the staging's writes before the token copies into that memory
      if constexpr (kProducerShare)
        asm volatile("bar.sync 7, %0;" ::"n"(kShareThreads) : "memory");  // the producers' part too
      else
        consumers_sync();
      if (ctid == 0) {
        NVFP4_STAMP(kTrShareSynced);
        tokens_target = count_arrival(fuse.arrivals, gridDim.x);
        NVFP4_STAMP(kTrCounted);
        sm90::mbar_arrive(&tokens_counted);
      }
    }
  }
  if constexpr (kStream) {
    if (stream_local_steps > 0) {  // the first unit's first steps' tokens, into ring stages 0.. (P105)
      if (kEarlyFetch ? local_steps > 0 : fetch_local()) {
        if (ctid == 0) NVFP4_STAMP(kTrCounted);  // (trace builds: the local loads issued)
        local.store(local_steps, sm90::smem_addr(ring), kStageBytes, ctid);
        if (ctid == 0) NVFP4_STAMP(kTrShareStored);  // (its loads landed and decoded)
        sm90::fence_proxy_async_smem();  // the stores, then wgmma's reads of them
      }
      consumers_sync();
      if (ctid == 0) NVFP4_STAMP(kTrShareSynced);
    }
  }
  // The consumer's place in the ring, as shared-memory addresses that advance with the stage: its
  // `full` barrier (`empty` is kStages barriers on), the stage's token-tile descriptor (low word)
  // and the stage itself. Carried from step to step rather than derived from the stage index, so
  // the compiler cannot recompute them (and the thread's row offsets) inside the loop
  // (docs/perf-notes.md P14).
  uint32_t full_s = sm90::smem_addr(full), tok_lo = sm90::desc_kmajor_sw128_lo(sm90::smem_addr(ring));
  uint32_t stage = sm90::smem_addr(ring);
  int s = 0;
  uint32_t phase = 0;
  float acc[kRegs];
  static_assert(kMT == 1, "one m64 tile per consumer warpgroup (load_step, decode_slice)");
  // A fragments of the last two k16 slices issued: slice q uses frag[q & 1] (4 slices per step).
  uint32_t frag[2][4];
  WorkCursor cur = work_start(wp);
  Tile tile;
  // group_gemm: the held stage of the tile before, freed at this tile's start (P84).
  uint32_t held_empty = 0;
  [[maybe_unused]] int traced_units = 0;
  while (next_work<kParts, kBalanced>(sched, wp, cur, tile)) {
#if NVFP4_TRACE
    if (ctid == 0 && traced_units < kTraceUnits) {
      NVFP4_STAMP(unit_slot(traced_units, kTuNextWork));
      if (g_trace != nullptr) {
        int width = T;
        if constexpr (kNarrow)
          width = tile_width<kBalanced, C, T>(sched.entry(tile.group), tile.m0, sched.narrow);
        g_trace[blockIdx.x * kTraceSlots + unit_slot(traced_units, kTuInfo)] =
            static_cast<unsigned long long>(tile.group) | static_cast<unsigned long long>(width) << 8;
      }
    }
#endif
    const RowOffsets o = row_offsets<NB, C, T>(consumer, warp, g, t, tile.n0);
    uint32_t w_s = stage + o.w, sf_s = stage + o.sf;  // this thread's rows in the current stage

#pragma unroll
    for (int r = 0; r < kRegs; ++r) acc[r] = 0.0f;
    // The K loop, its wgmmas N tokens wide: T, or (group_gemm) narrower where the tile's live
    // tokens fit (narrow_width), so a partly filled tile multiplies less padding. A
    // loop per width, chosen once per tile: a branch among widths inside the slice loop cost the
    // loop itself 12-21 % (docs/perf-notes.md P11, P62).
    if (kHeldPath && held_empty != 0) {
      // The tile before went out through its held stage (below): back to the producer once the
      // stores have read it, here rather than in the K loop (a wait there made ptxas serialize the
      // wgmmas, C7513), after this tile's next_work.
      if (ctid % 128 == 0) sm90::bulk_wait_read();
      sm90::mbar_arrive(held_empty);
      held_empty = 0;
#if NVFP4_TRACE
      if (ctid == 0 && traced_units < kTraceUnits) NVFP4_STAMP(unit_slot(traced_units, kTuHeldFreed));
#endif
    }
    uint32_t prev_empty = 0;  // `empty` of the previous K step's stage, freed once its last slice is done
    const auto k_loop = [&](auto width) {
      constexpr int N = decltype(width)::value;
      const int steps = tile.k_step_end - tile.k_step_begin;
      for (int i = 0; i < steps; ++i) {
        sm90::mbar_wait(full_s, phase);
#if NVFP4_TRACE_FIRST_FULL
        // Only where asked for: this stamp changes the K loop's code, and with it the trace build's
        // K steps ran ~10 % slower than a report build's (docs/perf-notes.md P141).
        if (i == 0 && ctid == 0 && traced_units < kTraceUnits) NVFP4_STAMP(unit_slot(traced_units, kTuFirstFull));
#endif
        const StepWeights x = load_step<NB, C, T>(w_s, sf_s);
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          // frag[j & 1] fed the slice two back: wait until at most the last slice issued still runs,
          // then decode this slice while that one's wgmma runs.
          sm90::wgmma_wait<1>();
          if (j == 1 && prev_empty != 0) {
            // The previous step's last slice is done: free its stage. Every consumer thread arrives
            // itself, so each thread's own reads of the stage are ordered before the producer's
            // next copy into it (with lane 0 arriving for its warp after a __syncwarp,
            // compute-sanitizer racecheck reported WAR hazards on every reused stage).
            sm90::mbar_arrive(prev_empty);
            prev_empty = 0;
          }
          decode_slice(x, j, frag[j & 1]);
          sm90::wgmma_fence();  // the A registers were just written
          mma_slice<N>(tok_lo, j, frag[j & 1], acc);
          sm90::wgmma_commit();
        }
        prev_empty = full_s + kEmptyOff;
        full_s += 8;
        tok_lo += kStageBytes >> 4;
        stage += kStageBytes;
        w_s += kStageBytes;
        sf_s += kStageBytes;
        if (++s == kStages) {
          s = 0;
          phase ^= 1;
          full_s -= kEmptyOff;
          tok_lo -= kRingBytes >> 4;
          stage -= kRingBytes;
          w_s -= kRingBytes;
          sf_s -= kRingBytes;
        }
      }
    };
    if constexpr (kNarrow) {
      with_width<T, C, kBalanced>(tile_width<kBalanced, C, T>(sched.entry(tile.group), tile.m0, sched.narrow),
                                  k_loop);
    } else {
      k_loop(std::integral_constant<int, T>{});
    }
    // kParts: the unit's order entry read again (nothing more is live through the K loop), its
    // load issued before the last wgmmas are waited for, so that its latency hides under them.
    [[maybe_unused]] int code = 0;
    if constexpr (kParts) {
      if (wp.sk.ctas == 0) code = sched.slot(cur.it - static_cast<int>(gridDim.x));
    }
    sm90::wgmma_wait<0>();
    sm90::fence_regs(acc);
#if NVFP4_TRACE
    if (ctid == 0 && traced_units < kTraceUnits) NVFP4_STAMP(unit_slot(traced_units, kTuLoopEnd));
    ++traced_units;
#endif
    // The CTA's last tile: nothing more is loaded into the ring, so once every consumer is done
    // reading it its outputs go out through it (StagedTile; after a split-K reduction, whose last
    // cluster barrier follows every remote read). group_gemm (kHeldPath): a tile with more work
    // after it goes out through its last K step's stage, which the consumers hold (do not free
    // yet) until its stores have read it, by passes of as many tokens as fit it (HeldTile, P84):
    // 2-byte stores straight to C (TileStore) took 3.6-10 us per tile where the staged copy takes
    // 1-2.3 (docs/perf-notes.md P80). (A split tile is always its CTA's last: split-K plans give every
    // unit a CTA of its own.) The test is written here, on the cursor alone: with the stream-K role
    // in it, ptxas moved the K loop's ring addresses out of the uniform registers (119 -> 125
    // instructions per K step). gemm and dual_gemm, whose benchmark plans run one unit per CTA,
    // keep TileStore: the held path's code alone cost gemm 128x7168x16384 3 %. (Under a balanced
    // order whose next slot is -1 the CTA's last tile takes the held path: correct, as fast, P81;
    // the 2 x 256 kernels send every unsplit last tile that way, kLastHeld, P140.)
    // kParts: whether this unit is a cut unit's part (P125): 0 no, 1 the writer, 2 the adder
    // (data-parallel launches only: under stream-K the cursor counts K steps, not order slots).
    [[maybe_unused]] const int part = kParts && is_part(code) ? (part_writer(code) ? 1 : 2) : 0;
    const bool last = cur.it >= work_end(wp);
    const bool staged = last && (!kLastHeld || splits > 1);
    if (prev_empty != 0 && (staged || !kHeldPath)) sm90::mbar_arrive(prev_empty);
    if constexpr (kHeldPath) {
      if (!last) sched.prefetch_slot(cur.it);  // the next unit's order entry, read after this epilogue
    }

    if constexpr (kParts) {
      if (part == 1) {  // the writer: its sums to this CTA's slot, for the adder on CTA blockIdx.x - 1
        if (prev_empty != 0 && !staged) sm90::mbar_arrive(prev_empty);
        store_partial<kConsumers * 128>(acc, wp, ctid, consumers_sync);
        continue;
      }
      // The adder: the writer's sums (CTA blockIdx.x + 1's slot; its flag lowered for the next
      // launch) added to its own, as a stream-K owner of one peer adds them.
      if (part == 2) add_partials<kConsumers * 128>(acc, wp, static_cast<int>(blockIdx.x) + 2, ctid, consumers_sync);
    }
    int peer_end;
    const SegmentRole role = work_role(sched, wp, cur, peer_end);
    if (role == SegmentRole::kPartial) {  // stream-K: a later run of this tile, summed by its owner
      if (kHeldPath && prev_empty != 0 && !staged) sm90::mbar_arrive(prev_empty);
      store_partial<kConsumers * 128>(acc, wp, ctid, consumers_sync);
      continue;
    }
    if (role == SegmentRole::kOwner) add_partials<kConsumers * 128>(acc, wp, peer_end, ctid, consumers_sync);
    // Every consumer's reads of the ring (wgmma's included) done: splitk_reduce and the staged tile
    // reuse it, the held tile its last stage.
    if (splits > 1 || staged || kHeldPath) consumers_sync();
#if NVFP4_TRACE
    if (ctid == 0 && traced_units <= kTraceUnits) NVFP4_STAMP(unit_slot(traced_units - 1, kTuEpilogue));
#endif
    OutView out;  // read after the main loop, where registers are free
    {
      const GemmEntry& e = sched.entry(tile.group);
      out = OutView{e.args.c, e.args.m, e.args.n};
    }
    // put(dm, dn, a, b) for the 8 x 8 block qq of the tile (qq = (T / 8) mt + j: n8 token block j
    // of m64 tile mt) from its accumulators x: tokens 8 j.. from the tile's first, columns dn..
    // from the warp's first (slots, or dual_gemm output columns).
    const auto put_block = [&](auto&& put, int qq, const float* x) {
      const int mt = qq / (T / 8), j = qq % (T / 8), base = (consumer * kMT + mt) * 64;  // the warpgroup's first slot
      if constexpr (NB == 1) {  // rows g: tokens 2t, 2t + 1; rows g + 8: the same tokens
        put(8 * j, base, x[0] * fp4::kRawScale2, x[1] * fp4::kRawScale2);
        put(8 * j, base + 8, x[2] * fp4::kRawScale2, x[3] * fp4::kRawScale2);
      } else {  // x1 in rows g (B1), x2 in rows g + 8 (B2) of the same output column
        put(8 * j, base / 2, silu_mul_fast(x[0] * fp4::kRawScale2, x[2] * fp4::kRawScale2),
            silu_mul_fast(x[1] * fp4::kRawScale2, x[3] * fp4::kRawScale2));
      }
    };
    // Stores this rank's share, units [u0, u1): blocks(put) calls put_block for each of its blocks.
    const auto store_share = [&](auto&& blocks, int u0, int u1) {
      const int c0 = NB == 1 ? warp * 16 : warp * 8;  // the warp's first column in the tile
      using Staged = StagedTile<NB == 1 ? Cf::kSlots : Cf::kSlots / 2>;
      if (staged) {
        static_assert(Staged::bytes(T) <= kStages * kStageBytes, "the staged tile fits in the ring");
        const Staged sm(ring, c0, lane);
        blocks([&](int dm, int dn, float a, float b) { sm.block(dm, dn, a, b); });
        consumers_sync();
        if constexpr (kBalanced) {  // a balanced tile's rows end at its height (P219)
          const int h = tile_live(sched.entry(tile.group), tile.m0);
          sm.template copy_out<kConsumers * 128>(out, tile.l, tile.m0, tile.n0, std::min(16 * u0, h),
                                                 std::min(16 * u1, h), ctid);
        } else {  // (one call with the bounds in variables changed gemm's epilogue registers)
          sm.template copy_out<kConsumers * 128>(out, tile.l, tile.m0, tile.n0, 16 * u0, 16 * u1, ctid);
        }
      } else if constexpr (!kHeldPath) {
        const TileStore st(out, tile.l, tile.m0, tile.n0 + c0, lane);
        blocks([&](int dm, int dn, float a, float b) { st.block(dm, dn, a, b); });
      } else {  // held: each warpgroup its own 64 columns, pass by pass (held_rows, HeldTile)
        static_assert(NB == 1, "the held path is group_gemm's (64 output columns per consumer warpgroup)");
        constexpr int kHeldRows = held_rows(T, kStageBytes, kConsumers);
        using Held = HeldTile<kHeldRows>;
        const Held ht(ring + (s == 0 ? kStages - 1 : s - 1) * kStageBytes + consumer * Held::kBytes, warp, lane);
        const int live = kBalanced ? tile_live(sched.entry(tile.group), tile.m0) : static_cast<int>(out.m - tile.m0),
                  wtid = ctid % 128;
        const uint32_t wg_bar = 2 + consumer;  // named barrier 2 + c: warpgroup c's threads
        const bool aligned = c_rows_aligned(out.c, out.n);
        // A TMA store writes its whole box, clipped only at C's end: a pass past a balanced tile's
        // height (P219) that C goes on after is copied by vectors instead.
        const bool ends_c = !kBalanced || tile.m0 + live >= out.m;
        static_for<T / kHeldRows>([&](auto pass) {
          constexpr int r0 = decltype(pass)::value * kHeldRows;
          if (r0 != 0 && live <= r0) return;  // no live tokens in this pass (a narrow tile)
          const bool tma = aligned && (ends_c || r0 + kHeldRows <= live);
          if (r0 != 0) {                       // the previous pass read out of the region
            if (aligned && wtid == 0) sm90::bulk_wait_read();
            sm90::named_sync<128>(wg_bar);
          }
          blocks([&](int dm, int dn, float a, float b) {
            if (dm >= r0 && dm < r0 + kHeldRows) ht.block(dm - r0, (dn & 8) != 0, a, b);
          });
          if (tma) {  // the stmatrix writes, then one thread's TMA store of the region
            sm90::fence_proxy_async_smem();
            sm90::named_sync<128>(wg_bar);
            if (wtid == 0) {
              sm90::tma_store_3d(&table[tile.group].out, sm90::smem_addr(ht.region), tile.n0 + 64 * consumer,
                                 tile.m0 + r0, tile.l);
              sm90::bulk_commit();
            }
          } else {
            sm90::named_sync<128>(wg_bar);
            ht.copy_out(out, tile.l, tile.m0 + r0, tile.n0 + 64 * consumer, std::min(kHeldRows, live - r0), wtid);
          }
        });
        // The stage goes back to the producer at the next tile's start, once the stores have read
        // it (bulk_wait_read there): the producer's next copy into it is an async-proxy write after
        // this thread's generic ones.
        sm90::fence_proxy_async_smem();
        held_empty = prev_empty;
      }
#if NVFP4_TRACE
      if (ctid == 0 && traced_units <= kTraceUnits) NVFP4_STAMP(unit_slot(traced_units - 1, kTuStored));
#endif
    };
    // Any share of the whole accumulator array (pulled or unsplit)...
    const auto epilogue = [&](const float(&v)[kRegs], int u0, int u1) {
#if NVFP4_TRACE
      if (ctid == 0) NVFP4_STAMP(kTrEpilogue);
#endif
      store_share(
          [&](auto&& put) {
#pragma unroll
            for (int q = 0; q < kRegs / 4; ++q)
              if (q >= u0 * 2 && q < u1 * 2) put_block(put, q, &v[4 * q]);
          },
          u0, u1);
    };
    // ...or the pushed half in `own`: every block of it, placed from u0 (no branch per block).
    const auto epilogue_own = [&](const float(&own)[kRegs / 2], int u0) {
      store_share(
          [&](auto&& put) {
#pragma unroll
            for (int q = 0; q < kRegs / 8; ++q) put_block(put, q + 2 * u0, &own[4 * q]);
          },
          u0, u0 + kRegs / kUnit / 2);
    };
    if constexpr (kGlobal) {
      if (sched.ts.push) {  // 4 ranks: pairs through DSMEM, then quarters through L2 (P138)
        sm90::cluster_wait();  // the peer's barriers are initialised
        pair_split_reduce<kConsumers * 128, kRegs, kUnit, kStages * kStageBytes,
                          StagedTile<NB == 1 ? Cf::kSlots : Cf::kSlots / 2>::bytes(T)>(
            acc, ring, wp, sched.ts.splits, &recv_full, &peer_ready, ctid, consumers_sync, epilogue);
      } else {
        global_split_reduce<kConsumers * 128, kRegs, kUnit>(acc, wp, sched.ts.splits, ctid, consumers_sync, epilogue,
                                                            [&](int point) {
#if NVFP4_TRACE
                                                              NVFP4_STAMP(kTrXStored + point);
#else
                                                              (void)point;
#endif
                                                            });
      }
    } else {
      if (splits > 1) sm90::cluster_wait();  // the peers' barriers are initialised
      reduce_split<kConsumers * 128, kRegs, kUnit, kStages * kStageBytes,
                   StagedTile<NB == 1 ? Cf::kSlots : Cf::kSlots / 2>::bytes(T)>(
          acc, ring, splits, sched.ts.push, &recv_full, &peer_ready, ctid, epilogue, epilogue_own);
    }
  }
  // group_gemm: the last held tile's stores (a CTA's last tile may take that path) done before the
  // CTA's shared memory goes away.
  if constexpr (kHeldPath) {
    if (ctid % 128 == 0) sm90::bulk_wait();
  }
  if (ctid == 0) NVFP4_STAMP(kTrDone);
#else
  (void)maps;
  (void)table;
  (void)narrow_tok;
  (void)sched_arg;
  (void)wp;
  (void)fuse;
  (void)token_groups;
  __trap();  // the host runs this variant only on compute capability 9.0 (unsupported())
#endif
}

// ---- host ----

inline std::string unsupported(const DeviceInfo& dev, const Shape& s) {
  if (dev.cc() != 90)
    return "needs sm_90a (wgmma, TMA, setmaxnreg): compute capability 9.0 only; this GPU is " +
           std::to_string(dev.cc_major) + "." + std::to_string(dev.cc_minor);
  constexpr int smem = std::max({Cfg<2, 128>::kSmemBytes, Cfg<3, 128>::kSmemBytes, Cfg<2, 256>::kSmemBytes});
  return unsupported_family(dev, s, 90, "", smem,
                            "its shared-memory ring exceeds the per-block limit", kBK, "needs K % 64 == 0");
}

// cuTensorMapEncodeTiled from the driver (the binary does not link libcuda).
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || p == nullptr)
      throw_library_error("the CUDA driver has no cuTensorMapEncodeTiled", "cudaGetDriverEntryPointByVersion",
                          __FILE__, __LINE__);
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

// A tiled TMA descriptor: `rank` dims (innermost first), byte strides of dims 1.., box sizes.
inline CUtensorMap tensor_map(CUtensorMapDataType type, int rank, const void* base, const cuuint64_t* dims,
                              const cuuint64_t* strides, const cuuint32_t* box, CUtensorMapSwizzle swizzle) {
  CUtensorMap m{};
  const cuuint32_t elem_strides[3] = {1, 1, 1};
  const CUresult r = tensor_map_encoder()(&m, type, static_cast<cuuint32_t>(rank), const_cast<void*>(base), dims,
                                          strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                                          CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw_library_error("cuTensorMapEncodeTiled failed (CUresult " + std::to_string(static_cast<int>(r)) + ")",
                        "tensor_map", __FILE__, __LINE__);
  return m;
}

// One CTA shape's launch over a case: the plan (tiles, one-wave split count), how its work is
// shared out, and the model cost the runner compares, in K steps of (2 consumers, 128 tokens):
//   data-parallel: the busiest CTA's K steps x the measured time of one K step of this CTA shape
//     relative to (2, 128), plus the split-K reduction's price: kSplitSteps for 2 ranks (pushed),
//     kPulledSplitSteps for more (H100, docs/perf-notes.md P5/P7/P17, P34, P73) (grouped
//     launches: before P18, the K steps of all units spread evenly);
//   stream-K: the busiest CTA's K steps x kStreamKStep, plus kPeerSteps per partial tile it adds
//     and kStoreSteps for one it writes (both scaled by the accumulator tile's size).
// `sched` forces one: "data", "stream-k", or empty for the cheaper.
struct ShapePlan {
  int consumers = 2, tokens = 128, slots = 128;
  LaunchPlan lp;
  int units = 0, blocks = 0;
  bool stream_k = false;
  int slot_floats = 0;  // stream-K: one CTA's accumulators
  double cost = 0;
  std::vector<int> order;  // group_gemm: the units handed out by cost (GroupScheduler::order), or empty
  int narrow_units = 0;    // group_gemm: units on a narrow wgmma
  bool one_wave = false;   // every CTA resident at once (a forced split count may break it)
  bool global = false;     // split-K without clusters, the partial sums through L2 (P73)
  int cuts = 0;            // group_gemm 2 x 256: units cut in two K ranges (P125), 0 for none
  std::vector<int> uncut;  // with cuts: the order without them (for a launch that cannot run parts)
};

// Every unit's cost in full K steps of its CTA shape, in the scheduler's order: its K steps,
// scaled where its token tile runs narrow (counted in `narrow_units`): kStep64 / 96 / 112 for
// 128-token tiles, for 256-token ones the width's K step in `wide` (widths 64, 96, ..., 256)
// relative to the full one: kWideGroupStep, or kWideMixedStep for handing units out.
inline std::vector<double> unit_costs(const LaunchPlan& lp, int narrow, int consumers, int& narrow_units,
                                      const double (&wide)[7] = kWideGroupStep) {
  const int tokens = lp.ts.tokens;
  return unit_steps(lp, [&](const GemmEntry& e, int64_t t) {
    const int live = tile_live(e, static_cast<int>(t % e.tiles_t * e.tile_rows));
    const int w = narrow == 112 && tokens == 128 && consumers == 2 ? narrow_width_bal(live)
                                                                   : narrow_width(live, narrow, consumers, tokens);
    narrow_units += w < tokens ? static_cast<int>(lp.ts.splits) : 0;
    if (tokens == 256) return wide[w / 32 - 2] / wide[6];
    return w == 64 ? kStep64 : w == 96 ? kStep96 : w == 112 ? kStep112 : 1.0;
  });
}

//   kGlobal (data-parallel only): the split count bounded by the resident CTAs, not by where
//     clusters fit, and kGlobalSplitSteps for the reduction through L2 (P73).
template <int NB, int C, int T, class Sched, bool kGlobal = false>
ShapePlan plan_shape(const CaseView& c, double step_time, const std::string& sched, int narrow = 0,
                     bool balance = false) {
  using Cf = Cfg<C, T>;
  auto kernel = wgmma_gemm_kernel<NB, C, T, Sched, kGlobal>;
  // Checked on every plan, so a bad value never passes; -1: the model's choice.
  [[maybe_unused]] const int parts = forced_int("NVFP4_PERSISTENT_PARTS", 0, 1, -1);
  const MixedPrices mixed = mixed_prices();
  ShapePlan sp;
  sp.consumers = C;
  sp.tokens = T;
  sp.slots = Cf::kSlots;
  sp.slot_floats = Cf::kRegs * C * 128;
  sp.global = kGlobal;
  // group_gemm's 2 x 128 at narrow 112: each GEMM's tiles of balanced heights (P219).
  const bool balanced = std::is_same_v<Sched, GroupScheduler> && T == 128 && C == 2 && narrow == 112;
  sp.lp = plan_launch(kernel, Cf::kThreads, Cf::kSmemBytes, gemm_args_of(c, NB), T, Cf::kSlots / NB, kBK, 4, balanced);
  const int64_t resident = resident_ctas(kernel, Cf::kThreads, Cf::kSmemBytes, 1);
  if (kGlobal)
    sp.lp.ts.splits = choose_splits(sp.lp.tiles, min_k_steps(sp.lp), [&](int) { return resident; });
  force_splits(sp.lp, "NVFP4_PERSISTENT_SPLITS");
  StreamKPlan skp;
  if (sched != "data" && !kGlobal) {
    const double tile_scale = static_cast<double>(C * T) / (2 * 128);
    skp = plan_stream_k(sp.lp, resident, step_time * kStreamKStep, kPeerSteps * tile_scale, kStoreSteps * tile_scale,
                        "NVFP4_PERSISTENT_SK_CTAS");
  }
  const int splits = sp.lp.ts.splits;
  sp.units = static_cast<int>(sp.lp.tiles * splits);
  sp.blocks = splits > 1 ? sp.units : static_cast<int>(std::min<int64_t>(sp.units, resident));
  // group_gemm's unsplit launches price narrow tiles below full ones; where CTAs run several
  // units, which units share a CTA then decides the busiest one (P63).
  const int priced_narrow = std::is_same_v<Sched, GroupScheduler> && splits == 1 ? narrow : 0;
  const std::vector<double> cost = unit_costs(sp.lp, priced_narrow, C, sp.narrow_units);
  double busiest = round_robin_busiest(cost, sp.blocks);
  if (balance && priced_narrow != 0 && sp.units > sp.blocks && order_fits(static_cast<int64_t>(sp.lp.entries.size()), sp.units)) {
    // The shape's cost (its choice against the other CTA shapes) as P63 priced it: units handed
    // out round by round, no per-unit cost.
    busiest = std::min(busiest, balanced_order(cost, sp.blocks).busiest);
    // Which units share a CTA: 256-token tiles by their measured prices inside a mixed launch and
    // a per-unit cost, any number of units per CTA (P81); 128-token tiles round by round (P63).
    std::vector<double> priced = cost;
    double extra = 0.0;
    if (T == 256) {
      int counted = 0;  // the same narrow units as `cost` counted
      priced = unit_costs(sp.lp, priced_narrow, C, counted, mixed.step);
      extra = mixed.unit;
    }
    Balanced b = balanced_order(priced, sp.blocks, extra);
    std::vector<int64_t> first_unit;
    for (const GemmEntry& e : sp.lp.entries) first_unit.push_back(int64_t{e.first_tile} * splits);
    if (b.busiest < round_robin_busiest(priced, sp.blocks, extra)) sp.order = order_codes(b.order, first_unit);
    // 2 x 256, unsplit, the whole grid resident: the units that cross a CTA's share cut in two K
    // ranges (P125) where that lowers the busiest CTA by more than kPartGain (or where forced).
    if constexpr (T == 256) {
      std::vector<int> steps;
      for (double x : unit_steps(sp.lp, [](const GemmEntry&, int64_t) { return 1.0; }))
        steps.push_back(static_cast<int>(x));
      const int min_steps = *std::min_element(steps.begin(), steps.end());
      const int max_steps = *std::max_element(steps.begin(), steps.end());
      const bool allowed = splits == 1 && sp.blocks <= resident && min_steps >= 2 * kPartMinSteps &&
                           parts_fit(static_cast<int64_t>(sp.lp.entries.size()), sp.units, max_steps);
      if (parts != 0 && allowed) {
        std::vector<double> price(steps.size());
        for (size_t u = 0; u < steps.size(); ++u) price[u] = priced[u] / steps[u];
        const Wrapped w =
            wrapped_parts(steps, price, sp.blocks, extra, kPartWriterSteps, kPartAdderSteps, kPartMinSteps);
        const double now = std::min(b.busiest, round_robin_busiest(priced, sp.blocks, extra));
        if (!w.runs.empty() && w.cuts > 0 && (parts == 1 || w.busiest < now * (1.0 - kPartGain))) {
          sp.uncut = std::move(sp.order);
          sp.order = wrapped_codes(w, sp.blocks, first_unit);
          sp.cuts = w.cuts;
        }
      }
    }
  }
  sp.cost = busiest * step_time + (splits == 1   ? 0.0
                                   : kGlobal     ? kGlobalSplitSteps
                                   : splits == 2 ? kSplitSteps  // pushed (unless forced pulled, for measuring)
                                                 : kPulledSplitSteps);
  if (skp.sk.ctas > 0 && (skp.cost < sp.cost || sched == "stream-k")) {
    sp.order.clear();
    sp.stream_k = true;
    sp.lp.ts.splits = 1;
    sp.units = skp.sk.total;
    sp.blocks = skp.sk.ctas;
    sp.cost = skp.cost;
  }
  sp.one_wave = sp.blocks <= (splits > 1 && !sp.stream_k && !kGlobal
                                  ? resident_ctas(kernel, Cf::kThreads, Cf::kSmemBytes, splits)
                                  : resident);
  // The ranks of a tile wait for each other: every CTA must be resident at once.
  if (kGlobal && !sp.one_wave) sp.cost = 1e300;
  return sp;
}

// gemm and dual_gemm (one GEMM, SingleScheduler) and group_gemm (GroupScheduler): the token
// pre-pass, then the persistent wgmma launch in the CTA shape the cost model prefers for this
// case: 2 consumer warpgroups x 128 tokens, 3 x 128, or 2 x 256 (when a GEMM has more than 128
// tokens). prepare: plans, token workspace, entry table, TMA descriptors (grouped: a device table
// of them, one Maps per group).
template <int NB, bool kGrouped = false>
class WgmmaRunner final : public Runner {
  using Sched = std::conditional_t<kGrouped, GroupScheduler, SingleScheduler>;

 public:
  WgmmaRunner(const CaseView& c, cudaStream_t stream) {
    // K-step times relative to (2, 128), measured on an H100 (docs/perf-notes.md P5, P7, P17): since
    // P14's decode (3, 128) does 1.5x the slots in 1.49x the time (kThreeStep), (2, 256) twice the
    // tokens in 1.87x (kWideStep); a split-K launch costs kSplitSteps more.
    // NVFP4_PERSISTENT_CTA=2x128|3x128|2x256 forces a shape (for measuring the model's inputs).
    // NVFP4_PERSISTENT_SCHED=data|stream-k forces how the work is shared out (both, for measuring).
    const std::string forced = forced_choice("NVFP4_PERSISTENT_CTA", {"2x128", "3x128", "2x256"});
    const std::string sched = forced_schedule("NVFP4_PERSISTENT_SCHED");
    // group_gemm: the narrowest wgmma a partly filled 128-token tile may take (64 or 96 tokens, or
    // 0 for none; P62; 256-token tiles: any of 64 to 224 unless 0, P78; 112: 64, 96 and 112, with
    // each GEMM's 128-token tiles of balanced heights, P219), and the units handed out by cost (P63).
    // NVFP4_PERSISTENT_NARROW=0|64|96|112 and NVFP4_PERSISTENT_BALANCE=0|1 force them (measuring),
    // and are checked for every problem so a bad value never passes.
    const std::string narrow_env = forced_choice("NVFP4_PERSISTENT_NARROW", {"0", "64", "96", "112"});
    int narrow = kGrouped ? (narrow_env.empty() ? kNarrowTokens : std::stoi(narrow_env)) : 0;
    // 112's balanced tiles run only in the decoder-CTA kernel, which takes at most kMaxStreamGroups
    // GEMMs: a launch of more is planned and priced at 96, as before P219.
    if (narrow == 112 && c.groups.size() > static_cast<size_t>(kMaxStreamGroups)) narrow = 96;
    const bool balance = forced_int("NVFP4_PERSISTENT_BALANCE", 0, 1, 1) == 1;
    ShapePlan best =
        plan_shape<NB, 2, 128, Sched>(c, forced.empty() || forced == "2x128" ? 1.0 : 1e9, sched, narrow, balance);
    const ShapePlan three = plan_shape<NB, 3, 128, Sched>(c, forced.empty() || forced == "3x128" ? kThreeStep : 1e9,
                                                          sched, narrow, balance);
    if (three.cost < best.cost) best = three;
    int64_t max_m = 0;
    for (const GemmOperands& g : c.groups) max_m = std::max(max_m, g.dims.m);
    if (max_m > 128 || forced == "2x256") {
      const ShapePlan wide =
          plan_shape<NB, 2, 256, Sched>(c, forced.empty() || forced == "2x256" ? (kGrouped ? wide_step(256) : kWideStep) : 1e9,
                                        sched, narrow, balance);
      if (wide.cost < best.cost) best = wide;
    }
    // gemm: 2 x 128 with its split-K partial sums through L2 instead of a cluster, where the
    // model prices it below the clustered plans (P73); NVFP4_PERSISTENT_REDUCE=cluster|global
    // forces either (global: gemm only, 2 x 128).
    const std::string reduce = forced_choice("NVFP4_PERSISTENT_REDUCE", {"cluster", "global"});
    if constexpr (NB == 1 && !kGrouped) {
      if (reduce != "cluster") {
        if (reduce == "global" && !forced.empty() && forced != "2x128")
          throw std::invalid_argument("NVFP4_PERSISTENT_REDUCE=global: 2 x 128 only, not with NVFP4_PERSISTENT_CTA=" +
                                      forced);
        if (reduce == "global" && sched == "stream-k")
          throw std::invalid_argument("NVFP4_PERSISTENT_REDUCE=global: data-parallel only, not with "
                                      "NVFP4_PERSISTENT_SCHED=stream-k");
        const ShapePlan glob = plan_shape<NB, 2, 128, Sched, true>(c, 1.0, "data");
        if (reduce == "global" ||
            (glob.lp.ts.splits > 1 && glob.cost < best.cost && (forced.empty() || forced == "2x128") &&
             sched != "stream-k"))
          best = glob;
      }
    } else if (reduce == "global") {
      throw std::invalid_argument("NVFP4_PERSISTENT_REDUCE=global: gemm only");
    }
    if (best.global && !best.one_wave)
      throw std::invalid_argument("NVFP4_PERSISTENT_REDUCE=global: the forced split count does not fit one wave");
    const ShapePlan& sp = best;
    m_global = sp.global;
    m_consumers = sp.consumers;
    m_tok = sp.tokens;
    // group_gemm's 2 x 256 plans with a pre-pass launch warm no weights in L2: G=8 N=7168 ran 0.7 %
    // faster without (the pre-pass 0.8 us shorter under ncu, the main launch 0.5 us longer;
    // docs/perf-notes.md P143).
    m_tokens = TokenWorkspace(sp.lp, !sp.stream_k, stream, kGrouped && sp.tokens == 256 ? 0 : kPrefetchMB);
    m_tokens.raw = true;  // every token path of these kernels stores a*sa*2^-14; the epilogue takes kRawScale2 (P172)
    m_sched = scheduler_for<Sched>(sp.lp, m_tokens.table);
    // NVFP4_PERSISTENT_ISSUERS=1|2|3 forces the producer threads that issue the copies (measuring).
    m_sched.ts.issuers = forced_int("NVFP4_PERSISTENT_ISSUERS", 1, 3, kIssuers);
    // NVFP4_PERSISTENT_PUSH=0|1 forces the 2-rank split-K reduction: pulled (splitk_reduce) or pushed (push_reduce2).
    m_sched.ts.push = forced_int("NVFP4_PERSISTENT_PUSH", 0, 1, 1) == 1;
    // gemm's 4-rank split-K through L2: pairs of ranks summed through clusters of 2 first
    // (pair_split_reduce: gemm 128x4096x7168 -6.5 % on an H200, P138; in kGlobal launches ts.push
    // says so); NVFP4_PERSISTENT_PAIRS=0|1 forces it off or on, checked on every plan.
    const bool pairs = forced_int("NVFP4_PERSISTENT_PAIRS", 0, 1, 1) == 1;
    if constexpr (NB == 1 && !kGrouped) {  // the kGlobal kernel is gemm's alone
      if (sp.global) {
        m_sched.ts.push = pairs && sp.lp.ts.splits == 4;
        if (m_sched.ts.push && resident_ctas(wgmma_gemm_kernel<NB, 2, 128, Sched, true>, Cfg<2, 128>::kThreads,
                                             Cfg<2, 128>::kSmemBytes, 2) < sp.blocks)
          throw std::invalid_argument("NVFP4_PERSISTENT_PAIRS=1: the launch's clusters of 2 are not all resident");
      }
    }
    m_blocks = sp.blocks;
    // group_gemm: a loop per issuing role where CTAs run several units (P39: faster there; gemm and
    // dual_gemm keep the shared loop, P41); NVFP4_PERSISTENT_ROLE_LOOPS=0|1
    // forces it (measuring), and is checked for every problem so a bad value never passes.
    const bool role_loops =
        forced_int("NVFP4_PERSISTENT_ROLE_LOOPS", 0, 1, sp.stream_k || sp.units > sp.blocks ? 1 : 0) == 1;
    // group_gemm's 2 x 256 plans whose consumers decode the tokens (P123); cut units (P125) run
    // only in that kernel (kParts): a plan that will not launch it keeps its order without them.
    const bool wide_tokens = wide_tokens_wanted(best);
    if (best.cuts > 0 && !wide_tokens) {
      best.order = std::move(best.uncut);
      best.cuts = 0;
    }
    if constexpr (kGrouped) {
      m_sched.role_loops = role_loops;
      m_sched.narrow = narrow;
      if (!sp.order.empty()) {
        m_order = DeviceBuffer(sp.order.size() * sizeof(int));
        CUDA_CHECK(cudaMemcpyAsync(m_order.get(), sp.order.data(), m_order.bytes(), cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));  // sp goes away
        m_sched.order = m_order.get<int>();
      }
    }
    if (sp.stream_k) {
      m_work = StreamKWorkspace(StreamK(sp.units, sp.blocks), sp.slot_floats, stream);
    } else {
      // Cut units (P125): a slot of FP32 sums (a writer's) and a flag (lowered by its adder) per CTA.
      if (sp.cuts > 0) m_work = StreamKWorkspace(sp.blocks, sp.slot_floats, stream);
      // Slots of the stride form: the units, or the balanced order's padded slots (balance.hpp).
      m_work.plan.units = sp.order.empty() ? sp.units : static_cast<int>(sp.order.size());
      if (m_global)  // a slot per unit, then a count per tile
        m_partials = global_split_workspace(sp.units, sp.slot_floats, sp.lp.tiles, m_work.plan, stream);
    }

    const int slots = sp.slots;
    std::vector<Maps> maps;
    for (const GemmEntry& e : sp.lp.entries) maps.push_back(maps_of(e, slots));
    if (kGrouped) {
      m_map_table = DeviceBuffer(maps.size() * sizeof(Maps));
      CUDA_CHECK(cudaMemcpyAsync(m_map_table.get(), maps.data(), m_map_table.bytes(), cudaMemcpyHostToDevice, stream));
      if (narrow != 0) {  // each group's token boxes of 64, 96, ... rows below m_tok, then each one's of 112 (narrow_tok)
        std::vector<CUtensorMap> narrow_maps;
        for (const GemmEntry& e : sp.lp.entries)
          for (int rows = 64; rows < m_tok; rows += 32) narrow_maps.push_back(token_map(e, rows));
        if (m_tok == 128)
          for (const GemmEntry& e : sp.lp.entries) narrow_maps.push_back(token_map(e, 112));
        m_narrow_table = DeviceBuffer(narrow_maps.size() * sizeof(CUtensorMap));
        CUDA_CHECK(cudaMemcpyAsync(m_narrow_table.get(), narrow_maps.data(), m_narrow_table.bytes(),
                                   cudaMemcpyHostToDevice, stream));
      }
      CUDA_CHECK(cudaStreamSynchronize(stream));  // `maps` goes away
    } else {
      m_maps = maps.at(0);
    }
    // gemm, and group_gemm in 2 x 128 (a kernel of its own, P74), data-parallel, the whole grid
    // resident: the consumers of the main launch decode the tokens (TokenFuse, docs/perf-notes.md
    // P71) where TokenWorkspace::wants_fused says so and no decoder CTAs do (below).
    const bool fusable = kGrouped ? m_consumers == 2 && m_tok == 128 && m_tokens.groups <= kMaxFuseGroups &&
                                        fusable_tokens<NB, Sched, true>()
                                  : fusable_tokens<NB, Sched, false>();
    // gemm, 2 x 128, data-parallel, one unit per CTA, clustered or unsplit: the SMs the launch
    // leaves idle run decoder CTAs instead of a pre-pass (kStream, P104), in whole clusters, where
    // TokenWorkspace::wants_stream says so (NVFP4_PERSISTENT_TOKENS=fused|prepass|stream forces
    // the token path; other plans and problems keep theirs whatever it says).
    // group_gemm the same (P108) where the launch has at most kMaxStreamGroups GEMMs, whose token
    // sources then ride in the kernel's parameters (TokenGroups).
    int decoders = 0;
    if constexpr (NB == 1) {
      if (m_consumers == 2 && m_tok == 128 && !sp.stream_k && !m_global && sp.one_wave && sp.units == sp.blocks &&
          m_tokens.groups <= kMaxStreamGroups) {
        using Cf = Cfg<2, 128>;
        const int splits = m_sched.ts.splits;
        const int64_t resident = resident_ctas(wgmma_gemm_kernel<NB, 2, 128, Sched, false, false, true>,
                                               Cf::kThreads, Cf::kSmemBytes, splits);
        decoders = static_cast<int>(std::max<int64_t>(0, resident - m_blocks) / splits * splits);
      }
    }
    // With decoder CTAs each main CTA decodes its first groups' tokens into its ring itself (P105)
    // where its tokens have an issuing warp of their own; NVFP4_PERSISTENT_LOCAL_GROUPS forces how
    // many (0 to 2: 8 K steps fill the 2 x 128 ring), checked on every gemm and group_gemm plan.
    static_assert(2 * kStreamSteps <= Cfg<2, 128>::kStages, "two local groups fit the ring");
    const int local_groups =
        NB == 1 ? forced_int("NVFP4_PERSISTENT_LOCAL_GROUPS", 0, 2, kLocalGroups) : 0;
    if (TokenWorkspace::wants_stream("NVFP4_PERSISTENT_TOKENS", decoders)) {
      m_tokens.stream_into_main(stream, sp.lp.entries, m_blocks, decoders, m_sched.ts.splits,
                                m_sched.ts.issuers >= 2 ? local_groups : 0,
                                (kGrouped ? kGroupStreamParts : 1) * kStreamRows);
    } else if (m_tokens.wants_fused("NVFP4_PERSISTENT_TOKENS", int64_t{m_blocks} * m_consumers * 128, true) &&
               fusable && !sp.stream_k && sp.one_wave) {
      m_tokens.fuse_into_main(stream);
    }
    // NVFP4_PERSISTENT_WEIGHTS_AHEAD=0..8 forces, in fused plans, how many K steps' weights are
    // copied before the CTA's share of the decode is counted (0: none held back), checked on every plan.
    m_tokens.weights_ahead = forced_int("NVFP4_PERSISTENT_WEIGHTS_AHEAD", 0, Cfg<2, 128>::kStages, kWeightsAhead);
    // Narrow 112 (P219): the decoder-CTA 2 x 128 launch runs its kernel of balanced tiles (kBal)
    // where a tile's height or a last tile's live tokens are below 128 and above 96 (otherwise the
    // tiles are 128 apart, as every other kernel runs them); any other launch takes 96.
    if constexpr (kGrouped && NB == 1) {
      if (m_sched.narrow == 112) {
        bool wants = false;
        for (const GemmEntry& e : sp.lp.entries) {
          const int64_t last = e.args.m - int64_t{e.tiles_t - 1} * e.tile_rows;
          wants = wants || e.tile_rows < 128 || (last > 96 && last < 128);
        }
        m_balanced = wants && m_tokens.streamed() && m_consumers == 2 && m_tok == 128;
        if (!m_balanced) m_sched.narrow = 96;
        if (m_balanced)  // that kernel's shared-memory limit raised too (resident_ctas)
          resident_ctas(wgmma_gemm_kernel<NB, 2, 128, Sched, false, false, true, true>, Cfg<2, 128>::kThreads,
                        Cfg<2, 128>::kSmemBytes, m_sched.ts.splits);
      }
    }
    [[maybe_unused]] const int early_steps = forced_int("NVFP4_PERSISTENT_EARLY_STEPS", 0, kWideEarlyMax, kWideEarlySteps);
    if (wide_tokens) m_tokens.fuse_wide(stream, sp.lp.entries, early_steps);
    if constexpr (kGrouped && fusable_tokens<NB, Sched, true>()) {
      if (m_tokens.fused()) {  // the fused kernel's shared-memory limit raised (resident_ctas), its residency checked
        const int64_t resident =
            m_tok == 256 ? resident_ctas(wgmma_gemm_kernel<NB, 2, 256, Sched, false, true>, Cfg<2, 256>::kThreads,
                                         Cfg<2, 256>::kSmemBytes, m_sched.ts.splits)
                         : resident_ctas(wgmma_gemm_kernel<NB, 2, 128, Sched, false, true>, Cfg<2, 128>::kThreads,
                                         Cfg<2, 128>::kSmemBytes, m_sched.ts.splits);
        if (m_blocks > resident)
          throw std::logic_error("group_gemm persistent: the fused kernel's grid is not resident");
      }
    }
    m_plan = std::to_string(m_consumers) + " consumer warpgroups (" + std::to_string(slots) + " weight slots x " +
             std::to_string(m_tok) + " tokens per CTA), " + work_text(sp.lp, sp.stream_k, m_blocks) +
             (m_global ? (m_sched.ts.push ? ", partial sums through L2 after pairs through DSMEM" : ", partial sums through L2")
                       : "") +
             m_tokens.plan_text();
    if (m_balanced) m_plan += "; each GEMM's token tiles of balanced heights (n112 wgmmas too)";
    if (sp.narrow_units > 0)
      m_plan += "; " + std::to_string(sp.narrow_units) + " units on narrower wgmmas (partly filled token tiles)" +
                (sp.order.empty() ? "" : ", units handed out by cost");
    if (sp.cuts > 0)
      m_plan += "; " + std::to_string(sp.cuts) + " units cut in two K ranges on neighbouring CTAs";
  }
  void run(cudaStream_t stream) override {
    m_tokens.decode(stream);
    if constexpr (NB == 1 && !kGrouped) {
      if (m_global) return launch<2, 128, true>(stream);
    }
    if constexpr (NB == 1) {
      if constexpr (kGrouped) {
        if (m_tokens.streamed() && m_balanced) return launch<2, 128, false, false, true, true>(stream);
      }
      if (m_tokens.streamed()) return launch<2, 128, false, false, true>(stream);
    }
    if constexpr (kGrouped && fusable_tokens<NB, Sched, true>()) {
      if (m_tokens.fused()) return m_tok == 256 ? launch<2, 256, false, true>(stream) : launch<2, 128, false, true>(stream);
    }
    if (m_tok == 256)
      launch<2, 256>(stream);
    else if (m_consumers == 3)
      launch<3, 128>(stream);
    else
      launch<2, 128>(stream);
  }
  std::string plan() const override { return m_plan; }

 private:
  // group_gemm in 2 x 256, data-parallel and unsplit, the whole grid resident, at most
  // kMaxWideFuseGroups GEMMs, and TokenWorkspace::wants_wide_fused: the consumers decode the
  // tokens in two phases (WideTokens, P123). After m_tokens, m_sched and m_blocks are set (the
  // 2 x 128 token paths, fused() and streamed(), are never taken with 256 tokens).
  bool wide_tokens_wanted(const ShapePlan& sp) const {
    if constexpr (kGrouped && NB == 1) {
      if (m_consumers == 2 && m_tok == 256 && !sp.stream_k && sp.one_wave && m_sched.ts.splits == 1 &&
          m_tokens.groups <= kMaxWideFuseGroups && !m_tokens.fused() && !m_tokens.streamed()) {
        int64_t live = 0;
        for (const GemmEntry& e : sp.lp.entries) live += e.args.l * e.args.m * e.tok_chunks;
        return TokenWorkspace::wants_wide_fused("NVFP4_PERSISTENT_TOKENS", live, int64_t{m_blocks} * 2 * 128);
      }
    }
    return false;
  }
  // One GEMM's token region of the workspace, in boxes of `rows` tokens x one K step.
  CUtensorMap token_map(const GemmEntry& e, int rows) const {
    const GemmArgs& p = e.args;
    const cuuint64_t dims[2] = {static_cast<cuuint64_t>(p.k), static_cast<cuuint64_t>(p.l * e.m_pad)};
    const cuuint64_t strides[1] = {static_cast<cuuint64_t>(p.k * 2)};
    const cuuint32_t box[2] = {kBK, static_cast<cuuint32_t>(rows)};
    return tensor_map(CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, m_tokens.data() + e.tok_offset, dims, strides, box,
                      CU_TENSOR_MAP_SWIZZLE_128B);
  }
  // One GEMM's TMA descriptors: its token region of the workspace and its packed B (and B2).
  Maps maps_of(const GemmEntry& e, int slots) const {
    const GemmArgs& p = e.args;
    Maps m{};
    m.tok = token_map(e, m_tok);
    for (int b = 0; b < NB; ++b) {
      const cuuint64_t dims[3] = {static_cast<cuuint64_t>(p.k / 2), static_cast<cuuint64_t>(p.n),
                                  static_cast<cuuint64_t>(p.l)};
      const cuuint64_t strides[2] = {static_cast<cuuint64_t>(p.k / 2), static_cast<cuuint64_t>(p.n * (p.k / 2))};
      const cuuint32_t box[3] = {kBK / 2, static_cast<cuuint32_t>(slots / NB), 1};
      m.w[b] = tensor_map(CU_TENSOR_MAP_DATA_TYPE_UINT8, 3, p.b[b], dims, strides, box, CU_TENSOR_MAP_SWIZZLE_NONE);
    }
    if (NB == 1) m.w[1] = m.w[0];
    if (kGrouped && c_rows_aligned(p.c, p.n)) {  // the held tiles' stores (HeldTile)
      const cuuint64_t dims[3] = {static_cast<cuuint64_t>(p.n), static_cast<cuuint64_t>(p.m),
                                  static_cast<cuuint64_t>(p.l)};
      const cuuint64_t strides[2] = {static_cast<cuuint64_t>(p.n * 2), static_cast<cuuint64_t>(p.m * p.n * 2)};
      const cuuint32_t box[3] = {64, static_cast<cuuint32_t>(held_rows_of(m_consumers, m_tok)), 1};
      m.out = tensor_map(CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 3, p.c, dims, strides, box, CU_TENSOR_MAP_SWIZZLE_128B);
    }
    return m;
  }
  // held_rows of the launch's CTA shape, as its kernel computes it.
  static int held_rows_of(int consumers, int tokens) {
    if (tokens == 256) return held_rows(256, Cfg<2, 256>::kStageBytes, 2);
    return consumers == 3 ? held_rows(128, Cfg<3, 128>::kStageBytes, 3) : held_rows(128, Cfg<2, 128>::kStageBytes, 2);
  }
  template <int C, int T, bool kGlobal = false, bool kFused = false, bool kStream = false, bool kBal = false>
  void launch(cudaStream_t stream) {
    constexpr bool kHeld = held_table<Sched, T, kFused, kStream>(), kWide = wide_fused<Sched, T, kFused>();
    TokenGroupsFor<kHeld> token_groups{};
    if constexpr (kHeld) token_groups = m_tokens.token_groups();
    const int64_t grid = m_blocks + (kStream ? m_tokens.decoder_ctas : 0);
    MapsFor<kHeld, kWide> maps;
    static_cast<Maps&>(maps) = m_maps;
    if constexpr (kHeld) {
      if (m_tokens.groups > kHeldGroups) throw std::logic_error("group_gemm persistent: more GEMMs than kHeldGroups");
      maps.groups = m_tokens.held;
    }
    if constexpr (kWide) {
      if (!m_tokens.wide_fused()) throw std::logic_error("group_gemm persistent: the wide fused kernel without its phases");
      maps.wide = m_tokens.wide;
    }
#if NVFP4_TRACE
    arm_trace(m_trace, static_cast<size_t>(grid) * kTraceSlots, g_trace, stream);
#endif
    launch_clustered(wgmma_gemm_kernel<NB, C, T, Sched, kGlobal, kFused, kStream, kBal>, grid, Cfg<C, T>::kThreads,
                     Cfg<C, T>::kSmemBytes,
                     kGlobal ? (m_sched.ts.push ? 2 : 1) : static_cast<int>(m_sched.ts.splits), stream, maps,
                     static_cast<const Maps*>(m_map_table.get<Maps>()),
                     static_cast<const CUtensorMap*>(m_narrow_table.get<CUtensorMap>()), m_sched, m_work.plan,
                     m_tokens.fuse(), token_groups);
  }
  TokenWorkspace m_tokens;
  DeviceBuffer m_map_table;
  DeviceBuffer m_order;         // GroupScheduler::order
  DeviceBuffer m_narrow_table;  // group_gemm: each group's token maps of 64, 96, ... rows (the kernel's narrow_tok)
  bool m_balanced = false;      // group_gemm: the decoder-CTA launch runs the kernel of balanced tiles (kBal, P219)
  Sched m_sched;
  Maps m_maps{};
  StreamKWorkspace m_work;  // its plan: stream-K or data-parallel (units; with cut units, per-CTA slots and flags)
  DeviceBuffer m_partials;  // split-K through L2 (m_global): the slots and the counts
  int m_blocks = 0, m_consumers = 2, m_tok = 128;
  bool m_global = false;
  std::string m_plan;
#if NVFP4_TRACE
  DeviceBuffer m_trace;  // the last launch's stamps, [CTA][kTraceSlots]

 public:
  // Appends the last launch's stamps to $NVFP4_TRACE_OUT: a line per CTA, "plan|slot0,slot1,..." (ns).
  ~WgmmaRunner() override { append_trace(m_plan, m_trace, kTraceSlots); }
#endif
};

}  // namespace nvfp4::gemm::wg
