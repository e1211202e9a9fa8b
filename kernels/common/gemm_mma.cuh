// SPDX-License-Identifier: Apache-2.0
// gemm_mma.cuh: the `tensor-core` mainloop of the GEMM family (mma.sync m16n8k16, FP16 in, FP32
// accumulation), instantiated by kernels/gemm/tensor-core.cu (NB = 1) and
// kernels/dual_gemm/tensor-core.cu (NB = 2).
//
// Two launches per call, both timed:
//   1. decode_tokens (gemm_tokens.cuh): A (tokens) -> exact FP16 in a workspace, each 64-element
//      chunk in "fragment order" (below); ldmatrix then feeds the tokens to the MMA. gemm and
//      dual_gemm plans whose grid is resident and whose threads' share is one batch of loads skip
//      it: a kernel of their own does that work first (TokenFuse, gemm_tokens.cuh; P71).
//   2. mma_gemm: CTA tile = 128 weight slots (MMA M side; gemm: 128 B rows, dual: 64 rows of B1
//      and the same 64 of B2) x 128 tokens (MMA N side), K step 64, 4-stage cp.async ring of
//      {tokens FP16 16 KB, packed weights 4 KB, weight scales 512 B (blocked layout: 4 contiguous
//      bytes per row)}. 4 warps, each 32 weight rows x all 128 tokens (128 FP32 accumulators per
//      thread): every weight row is decoded by exactly one warp. Or (Geometry<8>, gemm and dual_gemm
//      plans the cost model prefers it for, data-parallel or stream-K) 8 such warps, 256 weight
//      slots, one CTA per SM, sharing each token tile, on an 8-stage ring run by mbarriers
//      (main_loop_ring, P95; stream-K carries its phases from tile to tile, P96). Or (Geometry<8, 2>,
//      gemm's data-parallel plans, P161) 8 warps on 128 weight slots, warps w and w + 4 on the two
//      K halves of the same rows' every step, added in the epilogue (fold_part, fold_halves).
//      Weights are decoded in registers straight into A fragments: lane (g, t) owns scale block t
//      of its rows' 64-element chunk (one LDS.64 + one scale byte per row), decodes it with the
//      shift trick and one HMUL2 per pair (core/fp4_decode.cuh), and the 8 half2 it gets are exactly
//      its A registers for the chunk's 4 MMAs: MMA j takes h[2j] (k slots 2t, 2t+1) and h[2j+1]
//      (k slots 2t+8, 2t+9). The token workspace stores the same map ("fragment order"), so both
//      operands agree on which element sits in which k slot: any permutation of K is allowed
//      because every value already carries its own scale.
//      Tokens: ldmatrix.x4 from a 128-byte-row tile swizzled by 16-byte chunk (chunk ^ row % 8).
//   Split-K (gemm_common.cuh: the splits of a tile form a cluster and reduce through distributed
//   shared memory, 2 ranks by pushing each other's half, push_reduce2, more by pulling,
//   splitk_reduce) fills the GPU when there are fewer output tiles than CTA slots.
//   Epilogue: acc * 2^14 (the decode's raw scale), then the FP16 output (gemm) or silu(x1)*x2
//   (dual: B1 and B2 rows of the same columns sit in one lane's two m16 tiles, silu_mul_fast),
//   written through the drained ring and copied out by whole rows (StagedTile, gemm_common.cuh).
#pragma once

#include <cuda_fp16.h>

#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "core/case_data.hpp"
#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/device_info.hpp"
#include "core/variant.hpp"
#include "core/fp4_decode.cuh"
#include "gemm_launch.cuh"
#include "gemm_tokens.cuh"
#include "occupancy_cost.hpp"

// Probe builds only (-DNVFP4_TRACE=1, CMake NVFP4BENCH_TRACE=ON; never in a report's build): thread
// 0 of each CTA stamps %globaltimer at the points of MmaTraceSlot, and the runner appends the last
// launch's stamps to $NVFP4_TRACE_OUT ("plan|s0,s1,..." per CTA, ns) when it goes away.
#ifndef NVFP4_TRACE
#define NVFP4_TRACE 0
#endif
namespace nvfp4::gemm::mma {
enum MmaTraceSlot : int {
  kMtEntry,        // kernel entry
  kMtShareStored,  // fused plans: the CTA's token share stored (before the CTA barrier)
  kMtCounted,      // fused plans: every CTA counted (the wait returned)
  kMtFirstFull,    // the first K step's stage full (its wait returned)
  kMtLoopEnd,      // the K loop done (before the closing barrier)
  kMtLoopSynced,   // every warp's K loop done
  kMtFolded,       // KH = 2: the two K halves added (fold_halves)
  kMtSummed,       // the outputs summed (after any split-K exchange), before they are staged
  kMtStored,       // the CTA's outputs stored
  kMtSlots
};
#if NVFP4_TRACE
__device__ unsigned long long* g_mma_trace;
#define NVFP4_MMA_STAMP(slot)                                                                           \
  do {                                                                                                  \
    if (threadIdx.x == 0) NVFP4_STAMP_TO(g_mma_trace, blockIdx.x * ::nvfp4::gemm::mma::kMtSlots + (slot)); \
  } while (0)
#else
#define NVFP4_MMA_STAMP(slot) ((void)0)
#endif

inline constexpr int kTokens = 128;  // tokens per CTA (MMA N)
inline constexpr int kBK = 64;       // K per stage
inline constexpr int kTokBytes = kTokens * kBK * 2;  // 16 KB, 128-byte rows
inline constexpr int kRegs = 128;  // accumulators per thread: 16 n8 x 2 m16 tiles x 4, acc[(nt*2+mt)*4+r]
inline constexpr int kUnit = 8;    // registers of one n8 tile (both m16 tiles): the split-K share unit

// The CTA of W warps (4 or 8), each 32 weight rows x all 128 tokens: W = 4 runs 2 CTAs per SM,
// W = 8 one, whose 8 warps share each token tile (half the token copies per SM and K step).
// KH = 2 (W = 8, gemm: docs/perf-notes.md P161): the 8 warps hold 128 weight rows, each K step's
// two K halves (k16 steps 0-1 and 2-3) computed by warps w and w + 4 of the same 32 rows, whose
// two partial sums the epilogue adds through shared memory (fold_halves): one CTA per SM with two
// warps per scheduler, where the 4-warp CTA alone on its SM has one.
template <int W, int KH = 1>
struct Geometry {
  static_assert(W == 4 || W == 8, "4 or 8 warps");
  static_assert(KH == 1 || (KH == 2 && W == 8), "K halves: 8 warps");
  static constexpr int kWarps = W;
  static constexpr int kKHalves = KH;
  static constexpr int kThreads = 32 * W;
  static constexpr int kSlots = 32 * W / KH;             // weight rows per CTA (MMA M)
  static constexpr int kCtasPerSm = 8 / W;
  static constexpr int kStages = W == 4 ? 4 : 8;         // W = 8: the split-K exchange needs 128 KB of ring; a power of 2
  static constexpr int kWBytes = kSlots * kBK / 2;      // 32-byte rows
  static constexpr int kSfBytes = kSlots * kBK / 16;    // 4 bytes per row
  static constexpr int kStageBytes = kTokBytes + kWBytes + kSfBytes;
  static constexpr int kRingBytes = kStages * kStageBytes;
  static constexpr int kParkSlot = 48;  // bytes per thread: Kernel::park's sources (36), the stream-K cursor (4)
  static constexpr int kParkCursor = 36;  // the cursor's offset in a slot (Kernel::cursor_slot), past park's
  static constexpr int kParkBytes = W == 8 ? kThreads * kParkSlot : 0;  // past the ring
  static constexpr int kBarBytes = W == 8 ? 2 * kStages * 8 : 0;   // the stream-K kernel's ring mbarriers, past that
  static constexpr int kSmemBytes = kRingBytes + kParkBytes + kBarBytes;
  static constexpr int kTokRowsPerPass = kThreads / 8;  // token rows one pass of 16-byte copies covers
  static constexpr int kOutRegs = kRegs / KH;  // accumulators per thread after fold_halves
  static_assert(kThreads * kOutRegs * 4 <= kSmemBytes, "the split-K exchange reuses the stage buffers");
  static_assert(kStageBytes % 128 == 0, "stages stay 128-byte aligned (the token tile's swizzle)");
};
using Narrow = Geometry<4>;

// ---- pass 2: the MMA mainloop ----

__device__ __forceinline__ void mma16816(float* d, uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3, uint32_t b0,
                                         uint32_t b1) {
  asm(  // no side effects: free to schedule
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t addr, uint32_t& r0, uint32_t& r1, uint32_t& r2, uint32_t& r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr));
}

template <int NB, int W = 4, int KH = 1>
struct Kernel : Geometry<W, KH> {
  using G = Geometry<W, KH>;
  static_assert(KH == 1 || NB == 1, "K halves: gemm");
  using G::kRingBytes, G::kSfBytes, G::kSlots, G::kSmemBytes, G::kStageBytes, G::kStages, G::kThreads, G::kWBytes;
  using Slots = SlotMap<NB, 16>;

  // This thread's global sources at K step 0; K step ks adds ks * (128, 32, 512) bytes.
  struct Sources {
    const uint8_t* tok;    // token row (tid >> 3), chunk (tid & 7); rows +kTokRowsPerPass per q
    const uint8_t* w[2];   // weight slots (tid >> 1) and kSlots / 2 + (tid >> 1), half tid & 1
    const uint8_t* sf;     // blocked scales of slot tid
    int tok_q_stride;      // bytes of kTokRowsPerPass token rows (K < 2^25)
  };

  // tid: threadIdx.x (see main_loop).
  __device__ __forceinline__ static Sources sources(const GemmArgs& p, const __half* tokens, int64_t m_pad,
                                                    const Tile& tile, int tid) {
    Sources s;
    s.tok = reinterpret_cast<const uint8_t*>(tokens + (tile.l * m_pad + tile.m0 + (tid >> 3)) * p.k) + (tid & 7) * 16;
    s.tok_q_stride = static_cast<int>(2 * G::kTokRowsPerPass * p.k);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int slot = (tid >> 1) + kSlots / 2 * h;
      const int64_t row = min(int64_t{tile.n0 + Slots::row(slot)}, p.n - 1);  // rows past N read row N-1, never stored
      s.w[h] = Slots::pick(slot, p.b[0], p.b[1]) + (tile.l * p.n + row) * (p.k / 2) + (tid & 1) * 16;
    }
    const int sslot = KH == 2 ? tid % kSlots : tid;  // KH = 2: threads kSlots.. copy no scales (load_weights)
    const int64_t srow = min(int64_t{tile.n0 + Slots::row(sslot)}, p.n - 1);
    s.sf = Slots::pick(sslot, p.sfb_blk[0], p.sfb_blk[1]) + SfGeometry{p.n, p.k / 16, p.l}.blocked_offset(srow, 0, tile.l);
    return s;
  }

  // Issues the cp.async copies of K step `ks` into stage buffer `st`: tokens 128 rows x 8
  // chunks of 16 bytes (1024 / kThreads per thread), weights kSlots x 2 chunks (2 per thread), and the
  // weights' blocked scales, whose 4 values per row and 64-element chunk are contiguous (one
  // 4-byte copy per thread).
  __device__ __forceinline__ static void load_tokens(uint8_t* st, const Sources& src, int ks) {
    const int tid = threadIdx.x;
    const uint8_t* tok = src.tok + ks * (kBK * 2);
    int stride = src.tok_q_stride;
    // W = 8: the row offsets recomputed every step (the stride opaque to ptxas), or ptxas keeps the
    // four sources live through the K loop and spills them (the 4-warp kernel computes them anyway).
    if constexpr (W == 8) asm volatile("" : "+r"(stride));
#pragma unroll
    for (int q = 0; q < kTokens / G::kTokRowsPerPass; ++q) {
      const int row = (tid >> 3) + G::kTokRowsPerPass * q, ch = tid & 7;
      cp_async16(st + row * 128 + ((ch ^ (row & 7)) << 4), tok + q * stride);
    }
  }
  __device__ __forceinline__ static void load_weights(uint8_t* st, const Sources& src, int ks) {
    const int tid = threadIdx.x;
    if constexpr (KH == 2) {  // one 16-byte copy per thread (slot tid >> 1, half tid & 1), the scales by warps 0-3
      cp_async16(st + kTokBytes + tid * 16, src.w[0] + ks * (kBK / 2));
      if (tid < kSlots) cp_async4(st + kTokBytes + kWBytes + tid * 4, src.sf + int64_t{ks} * 512);
      return;
    }
    if constexpr (W == 8) {  // the second source as an offset from the first (registers, as for the tokens)
      int delta = static_cast<int>(src.w[1] - src.w[0]);
      asm volatile("" : "+r"(delta));
      const uint8_t* w0 = src.w[0] + ks * (kBK / 2);
      cp_async16(st + kTokBytes + tid * 16, w0);
      cp_async16(st + kTokBytes + (tid + kThreads) * 16, w0 + delta);
    } else {
#pragma unroll
      for (int h = 0; h < 2; ++h) cp_async16(st + kTokBytes + (tid + kThreads * h) * 16, src.w[h] + ks * (kBK / 2));
    }
    cp_async4(st + kTokBytes + kWBytes + tid * 4, src.sf + int64_t{ks} * 512);  // 512: a 128-row atom's 4 blocks
  }
  __device__ __forceinline__ static void load_stage(uint8_t* st, const Sources& src, int ks) {
    load_tokens(st, src, ks);
    load_weights(st, src, ks);
  }

  // The A fragments of this warp's 32 weight rows for one K step (stage `st`): 16 registers per
  // lane, decoded from the packed weights and their scales (16 per m16 tile and row half: words
  // 2j, 2j + 1 feed k16 step j).
  using AFrags = uint32_t[2][2][8];
  __device__ __forceinline__ static void decode_weights(const uint8_t* st, int warp_w, int lane, AFrags& a) {
    const int g = lane >> 2, t = lane & 3;
    const uint8_t* w = st + kTokBytes;
    const uint8_t* sf = w + kWBytes;
    uint2 pk[2][2];
    __half2 sc[2][2];
#pragma unroll
    for (int mt = 0; mt < 2; ++mt)
#pragma unroll
      for (int hr = 0; hr < 2; ++hr) {
        const int slot = warp_w * 32 + mt * 16 + hr * 8 + g;
        pk[mt][hr] = *reinterpret_cast<const uint2*>(w + slot * 32 + 8 * t);
        sc[mt][hr] = fp4::e4m3_to_half2_bcast(sf[slot * 4 + t]);
      }
    // All 16 A registers of the chunk first (both words of the 4 rows), then per k16 step all 8
    // ldmatrix.x4 before its 32 MMAs (mma_stage): loads and decode run ahead of the tensor pipe.
#pragma unroll
    for (int mt = 0; mt < 2; ++mt)
#pragma unroll
      for (int hr = 0; hr < 2; ++hr)
#pragma unroll
        for (int word = 0; word < 2; ++word) {
          uint32_t raw[4];
          fp4::e2m1x8_to_raw_half2x4(word ? pk[mt][hr].y : pk[mt][hr].x, raw);
#pragma unroll
          for (int i = 0; i < 4; ++i) a[mt][hr][4 * word + i] = fp4::hmul2_u32(raw[i], sc[mt][hr]);
        }
  }

  // One k16 step of this warp: the token tile's 16-byte chunks ch0 and ch0 + 1 of every row (8
  // ldmatrix.x4, two n8 token tiles each), then its 32 MMAs; a[mt][half][w]: word w of the A
  // registers of m16 tile mt for rows g (half 0) and g + 8 (1), k slots 2t (w = 0) and 2t + 8 (1).
  template <class A>
  __device__ __forceinline__ static void mma_k16(uint32_t tok, int ch0, const A& a, int w0, float (&acc)[kRegs],
                                                 int lane) {
    uint32_t b[8][4];
#pragma unroll
    for (int pp = 0; pp < 8; ++pp) {  // two n8 token tiles per ldmatrix.x4
      const int trow = (2 * pp + (lane >> 4)) * 8 + (lane & 7);
      const int ch = ch0 + ((lane >> 3) & 1);
      ldmatrix_x4(tok + trow * 128 + ((ch ^ (trow & 7)) << 4), b[pp][0], b[pp][1], b[pp][2], b[pp][3]);
    }
#pragma unroll
    for (int pp = 0; pp < 8; ++pp)
#pragma unroll
      for (int mt = 0; mt < 2; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          mma16816(&acc[((2 * pp + h) * 2 + mt) * 4], a[mt][0][w0], a[mt][1][w0], a[mt][0][w0 + 1], a[mt][1][w0 + 1],
                   b[pp][2 * h], b[pp][2 * h + 1]);
  }

  // The K step's 128 MMAs of this warp: A fragments `a`, the token tile of stage `st` by ldmatrix.
  __device__ __forceinline__ static void mma_stage(const uint8_t* st, const AFrags& a, float (&acc)[kRegs], int lane) {
    const uint32_t tok = smem_u32(st);
#pragma unroll
    for (int j = 0; j < 4; ++j) mma_k16(tok, 2 * j, a, 2 * j, acc, lane);  // k16 step within the chunk
  }

  // KH = 2: K half kh (k16 steps 2 kh and 2 kh + 1) of this warp's 32 rows (rows of warp rw): only
  // word kh of each row's packed chunk decoded (8 A registers), then those two k16 steps' 64 MMAs.
  using AHalf = uint32_t[2][2][4];
  __device__ __forceinline__ static void decode_half(const uint8_t* st, int rw, int kh, int lane, AHalf& a) {
    const int g = lane >> 2, t = lane & 3;
    const uint8_t* w = st + kTokBytes;
    const uint8_t* sf = w + kWBytes;
#pragma unroll
    for (int mt = 0; mt < 2; ++mt)
#pragma unroll
      for (int hr = 0; hr < 2; ++hr) {
        const int slot = rw * 32 + mt * 16 + hr * 8 + g;
        const uint32_t pk = *reinterpret_cast<const uint32_t*>(w + slot * 32 + 8 * t + 4 * kh);
        const __half2 sc = fp4::e4m3_to_half2_bcast(sf[slot * 4 + t]);
        uint32_t raw[4];
        fp4::e2m1x8_to_raw_half2x4(pk, raw);
#pragma unroll
        for (int i = 0; i < 4; ++i) a[mt][hr][i] = fp4::hmul2_u32(raw[i], sc);
      }
  }
  __device__ __forceinline__ static void mma_half(const uint8_t* st, const AHalf& a, float (&acc)[kRegs], int kh,
                                                  int lane) {
    const uint32_t tok = smem_u32(st);
#pragma unroll
    for (int jj = 0; jj < 2; ++jj) mma_k16(tok, 4 * kh + 2 * jj, a, 2 * jj, acc, lane);  // k16 step 2 kh + jj
  }

  // One K step (stage `st`) of this warp: its weights decoded, then its MMAs (KH = 2: its K half).
  __device__ __forceinline__ static void compute_stage(const uint8_t* st, float (&acc)[kRegs], int warp_w, int lane) {
    if constexpr (KH == 2) {
      AHalf a;
      decode_half(st, warp_w & 3, warp_w >> 2, lane, a);
      mma_half(st, a, acc, warp_w >> 2, lane);
    } else {
      AFrags a;
      decode_weights(st, warp_w, lane, a);
      mma_stage(st, a, acc, lane);
    }
  }


  // K steps [tile.k_step_begin, tile.k_step_end) of `tile` into acc (zeroed here), through the
  // kStages-deep cp.async ring; every stage buffer is free again on return. tid is threadIdx.x,
  // read by the caller: inside the stream-K kernel's loop over tiles it is read with an asm
  // volatile, which the compiler cannot hoist, or it keeps the thread's offsets live through the
  // main loop (the dual_gemm kernel, at 255 registers, spilled one).
  // fused_tokens (TokenFuse, docs/perf-notes.md P71), when not null: the first stages' weights are
  // copied first, then fused_tokens() (the CTA's share of the token decode, counted, and the wait
  // for every CTA's), then their tokens.
  template <class Sched, class Fused = std::nullptr_t>
  __device__ __forceinline__ static void main_loop(const Sched& sched, const __half* tokens, const Tile& tile,
                                                   uint8_t* smem, float (&acc)[kRegs], int warp_w, int lane, int tid,
                                                   Fused&& fused_tokens = nullptr) {
#pragma unroll
    for (int r = 0; r < kRegs; ++r) acc[r] = 0.0f;
    int steps, k0;
    Sources src;
    {
      const GemmEntry& e = sched.entry(tile.group);
      steps = tile.k_step_end - tile.k_step_begin;
      k0 = tile.k_step_begin;
      src = sources(e.args, tokens + e.tok_offset, e.m_pad, tile, tid);
    }
    if constexpr (std::is_same_v<std::decay_t<Fused>, std::nullptr_t>) {
#pragma unroll
      for (int s = 0; s < kStages - 1; ++s) {
        if (s < steps) load_stage(smem + s * kStageBytes, src, k0 + s);
        cp_async_commit();
      }
    } else {
#pragma unroll
      for (int s = 0; s < kStages - 1; ++s)
        if (s < steps) load_weights(smem + s * kStageBytes, src, k0 + s);
      fused_tokens();
#pragma unroll
      for (int s = 0; s < kStages - 1; ++s) {  // group 0 carries every first stage's weights
        if (s < steps) load_tokens(smem + s * kStageBytes, src, k0 + s);
        cp_async_commit();
      }
    }
    for (int it = 0; it < steps; ++it) {
      cp_async_wait<kStages - 2>();
      __syncthreads();
      if (NVFP4_TRACE && it == 0) NVFP4_MMA_STAMP(kMtFirstFull);
      const int next = it + kStages - 1;
      if (next < steps) load_stage(smem + (next % kStages) * kStageBytes, src, k0 + next);
      cp_async_commit();
      compute_stage(smem + (it % kStages) * kStageBytes, acc, warp_w, lane);
    }
    NVFP4_MMA_STAMP(kMtLoopEnd);
    cp_async_wait<0>();
    __syncthreads();  // the stage buffers are free: the split-K exchange (or the next tile) may reuse them
    NVFP4_MMA_STAMP(kMtLoopSynced);
  }

  // W = 8: the ring runs on mbarriers instead of a CTA barrier every K step (docs/perf-notes.md
  // P95): full[s] completes when every thread's copies of stage s have landed
  // (cp.async.mbarrier.arrive), empty[s] when all W warps have computed it. The copies run kLead
  // steps ahead, so a warp waits only for the slowest one kStages - kLead steps back, and the
  // warps' decode and MMA phases need not line up (with 8 warps meeting at a barrier every step
  // they did, and the step ran 7 % slower than two 4-warp CTAs'). `ring`: 2 x kStages mbarriers,
  // initialised by init_ring before a CTA barrier. g0: the K steps this CTA ran through the ring
  // before this tile (stream-K: a CTA runs several; data-parallel 0), so that every stage's phases
  // continue from tile to tile (the ring is drained at each tile's end).
  static constexpr int kLead = kStages / 2;
  __device__ __forceinline__ static void init_ring(uint64_t* ring) {
#pragma unroll
    for (int s = 0; s < kStages; ++s) {
      sm90::mbar_init(&ring[s], kThreads);
      sm90::mbar_init(&ring[kStages + s], G::kWarps);
    }
  }
  __device__ __forceinline__ static void cp_async_arrive(uint32_t bar) {
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(bar) : "memory");
  }
  // dual_gemm's 8-warp kernels: the thread's copy sources parked in shared memory (past the ring)
  // and read back every step, or ptxas spills them (255 registers) inside the MMAs.
  static constexpr bool kPark = W == 8 && NB == 2;
  // Thread tid's slot of the park area (Geometry::kParkBytes, past the ring).
  __device__ __forceinline__ static uint32_t park_slot(uint8_t* smem, int tid) {
    return smem_u32(smem + kRingBytes) + G::kParkSlot * tid;
  }
  __device__ __forceinline__ static void park(uint32_t at, const Sources& s) {
    asm volatile("st.shared.v2.u64 [%0], {%1, %2};" ::"r"(at), "l"(s.tok), "l"(s.w[0]) : "memory");
    asm volatile("st.shared.v2.u64 [%0+16], {%1, %2};" ::"r"(at), "l"(s.w[1]), "l"(s.sf) : "memory");
    asm volatile("st.shared.u32 [%0+32], %1;" ::"r"(at), "r"(s.tok_q_stride) : "memory");
  }
  __device__ __forceinline__ static Sources unpark(uint32_t at) {
    uint64_t tok, w0, w1, sf;
    Sources s;
    asm volatile("ld.shared.v2.u64 {%0, %1}, [%2];" : "=l"(tok), "=l"(w0) : "r"(at) : "memory");
    asm volatile("ld.shared.v2.u64 {%0, %1}, [%2+16];" : "=l"(w1), "=l"(sf) : "r"(at) : "memory");
    asm volatile("ld.shared.u32 %0, [%1+32];" : "=r"(s.tok_q_stride) : "r"(at) : "memory");
    s.tok = reinterpret_cast<const uint8_t*>(tok);
    s.w[0] = reinterpret_cast<const uint8_t*>(w0);
    s.w[1] = reinterpret_cast<const uint8_t*>(w1);
    s.sf = reinterpret_cast<const uint8_t*>(sf);
    return s;
  }
  // The 8-warp stream-K kernel's cursor, parked in the thread's slot (G::kParkCursor, past park's) through
  // main_loop_ring, which needs every register (held there, ptxas spilled 16-40 bytes, inside
  // dual_gemm's K loop). The slot's address from %tid.x read afresh, so that nothing stays live.
  __device__ __forceinline__ static uint32_t cursor_slot(uint8_t* smem) {
    int tid;
    asm volatile("mov.u32 %0, %%tid.x;" : "=r"(tid));
    return park_slot(smem, tid) + G::kParkCursor;
  }
  __device__ __forceinline__ static void park_cursor(uint8_t* smem, int v) {
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(cursor_slot(smem)), "r"(v) : "memory");
  }
  __device__ __forceinline__ static int unpark_cursor(uint8_t* smem) {
    int v;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(cursor_slot(smem)) : "memory");
    return v;
  }
  // kParked: the copy sources parked (dual_gemm's 8-warp kernels, and both 8-warp stream-K ones).
  template <bool kParked = kPark, class Sched, class Fused = std::nullptr_t>
  __device__ __forceinline__ static int main_loop_ring(const Sched& sched, const __half* tokens, const Tile& tile,
                                                        uint8_t* smem, float (&acc)[kRegs], int warp_w, int lane,
                                                        int tid, uint64_t* ring, Fused&& fused_tokens = nullptr,
                                                        int g0 = 0) {
#pragma unroll
    for (int r = 0; r < kRegs; ++r) acc[r] = 0.0f;
    const GemmEntry& e = sched.entry(tile.group);
    const int steps = tile.k_step_end - tile.k_step_begin, k0 = tile.k_step_begin;
    const Sources src = sources(e.args, tokens + e.tok_offset, e.m_pad, tile, tid);
    const uint32_t full = smem_u32(ring), empty = full + 8 * kStages;
    const uint32_t parked = park_slot(smem, tid);
    // Counted in the ring's steps (the CTA's, from g0): stage and phase of step gi, K step gi - kb.
    const int gend = g0 + steps, kb = g0 - k0;
    if constexpr (kParked) park(parked, src);
    if constexpr (std::is_same_v<std::decay_t<Fused>, std::nullptr_t>) {
#pragma unroll
      for (int s = 0; s < kLead; ++s)
        if (s < steps) {
          const int g = g0 + s, gs = g % kStages;
          // Stream-K's later tiles: the stage's last use (the CTA's previous tile, drained) is done;
          // waited for all the same, so that no completed phase of `empty` goes unobserved before
          // the next one's arrivals (compute-sanitizer's synccheck: "missing wait").
          if (g >= kStages) sm90::mbar_wait(empty + 8 * gs, ((g / kStages) - 1) & 1);
          load_stage(smem + gs * kStageBytes, src, k0 + s);
          cp_async_arrive(full + 8 * gs);
        }
    } else {  // data-parallel kernels only: g0 = 0
#pragma unroll
      for (int s = 0; s < kLead; ++s)
        if (s < steps) load_weights(smem + s * kStageBytes, src, k0 + s);
      fused_tokens();
#pragma unroll
      for (int s = 0; s < kLead; ++s)
        if (s < steps) {
          load_tokens(smem + s * kStageBytes, src, k0 + s);
          cp_async_arrive(full + 8 * s);  // tracks every earlier copy of this thread: the weights too
        }
    }
    for (int gi = g0; gi < gend; ++gi) {
      const int s = gi % kStages;
      sm90::mbar_wait(full + 8 * s, (gi / kStages) & 1);
      if (NVFP4_TRACE && gi == g0) NVFP4_MMA_STAMP(kMtFirstFull);
      compute_stage(smem + s * kStageBytes, acc, warp_w, lane);
      __syncwarp();  // the warp's reads of stage s are done
      if (lane == 0) sm90::mbar_arrive(empty + 8 * s);
      const int gn = gi + kLead;
      if (gn < gend) {
        const int ns = gn % kStages;
        if (gn >= kStages) sm90::mbar_wait(empty + 8 * ns, ((gn / kStages) - 1) & 1);  // its last use, done
        if constexpr (kParked)
          load_stage(smem + ns * kStageBytes, unpark(parked), gn - kb);
        else
          load_stage(smem + ns * kStageBytes, src, gn - kb);
        cp_async_arrive(full + 8 * ns);
      }
    }
    NVFP4_MMA_STAMP(kMtLoopEnd);
    __syncthreads();  // every warp is done with the ring: the split-K exchange may reuse it
    NVFP4_MMA_STAMP(kMtLoopSynced);
    return gend;  // the ring's steps after this tile
  }

  // The n8 token tile of accumulator unit u (kUnit registers: one n8 tile of both m16 tiles): u
  // itself, or (KH = 2, after fold_halves) 2 u + the warp's K half, so that a rank's units [u0, u1)
  // are token rows [16 u0, 16 u1) in both halves of the CTA.
  __device__ __forceinline__ static int unit_tile(int u, int warp_w) { return KH == 2 ? 2 * u + (warp_w >> 2) : u; }

  // KH = 2: warps w and w + 4 hold the two K halves' sums of the same outputs; each keeps the n8
  // tiles of its half's parity (unit_tile) and hands the others to its partner (thread tid ^
  // kThreads / 2) through shared memory at kFoldAt, past everything the split-K reductions and the
  // staged tile use of the ring: own[u * kUnit + i] = the two halves' sum (a + b = b + a, so either
  // partner would get the same bits). After main_loop_ring's closing barrier; one barrier inside.
  static constexpr int kFoldBytes = kThreads * G::kOutRegs * 4;
  static constexpr int kFoldAt = kRingBytes - kFoldBytes;
  static_assert(KH == 1 || (kFoldAt >= PartialTile<kSlots>::bytes(kTokens) &&
                            kFoldAt >= PushReduce<kThreads, G::kOutRegs, kUnit>::recv_after(StagedTile<kSlots>::bytes(kTokens)) +
                                           PushReduce<kThreads, G::kOutRegs, kUnit>::kRecvBytes &&
                            kFoldAt >= kThreads * G::kOutRegs * 4 && kFoldAt % 16 == 0),
                "the fold area is clear of the split-K exchange and the staged tile");
  // The fold of kParts of the folded units: local units [kParts hi, kParts hi + kParts) (kUnit
  // registers each, out[uu * kUnit + i] for unit kParts hi + uu), through part `area` of the fold
  // area (kParts units each), so that parts in different areas need no barrier between them (the
  // K-halves 2-rank plan folds its two halves around the pushed exchange, P161c). (hi is a rank's
  // choice at run time: values selected, not addresses.)
  template <int kParts>
  __device__ __forceinline__ static void fold_part(const float (&acc)[kRegs], uint8_t* smem, int tid, bool hi, int area,
                                                   float (&out)[kParts * kUnit]) {
    static_assert(KH == 2, "K halves");
    const bool odd = tid >= kThreads / 2;
    float4* const fold = reinterpret_cast<float4*>(smem + kFoldAt + area * (kParts * kUnit * kThreads * 4));
    // Register r of unit u's even (ev) or odd (ev + kUnit) n8 tile: 2 u kUnit + r.
    const auto pick = [&](int uu, int r) { return hi ? acc[2 * (uu + kParts) * kUnit + r] : acc[2 * uu * kUnit + r]; };
#pragma unroll
    for (int uu = 0; uu < kParts; ++uu)
#pragma unroll
      for (int q = 0; q < kUnit / 4; ++q) {
        const int ev = 4 * q, od = kUnit + 4 * q;
        fold[(uu * kUnit / 4 + q) * kThreads + tid] =
            make_float4(odd ? pick(uu, ev) : pick(uu, od), odd ? pick(uu, ev + 1) : pick(uu, od + 1),
                        odd ? pick(uu, ev + 2) : pick(uu, od + 2), odd ? pick(uu, ev + 3) : pick(uu, od + 3));
      }
    __syncthreads();
    const float4* const y = fold + (tid ^ (kThreads / 2));
#pragma unroll
    for (int uu = 0; uu < kParts; ++uu)
#pragma unroll
      for (int q = 0; q < kUnit / 4; ++q) {
        const int ev = 4 * q, od = kUnit + 4 * q, o = uu * kUnit + 4 * q;
        const float4 v = y[(uu * kUnit / 4 + q) * kThreads];
        out[o] = (odd ? pick(uu, od) : pick(uu, ev)) + v.x;
        out[o + 1] = (odd ? pick(uu, od + 1) : pick(uu, ev + 1)) + v.y;
        out[o + 2] = (odd ? pick(uu, od + 2) : pick(uu, ev + 2)) + v.z;
        out[o + 3] = (odd ? pick(uu, od + 3) : pick(uu, ev + 3)) + v.w;
      }
  }
  // Every unit at once.
  __device__ __forceinline__ static void fold_halves(const float (&acc)[kRegs], uint8_t* smem, int tid,
                                                     float (&own)[G::kOutRegs]) {
    fold_part<G::kOutRegs / kUnit>(acc, smem, tid, false, 0, own);
  }

  // KH = 2, two ranks pushed (the 2-rank plan, or a pair of the pairs plan): the pushed exchange's
  // receive area lies clear of the fold's, so the peer is told first that it may write it; then the
  // peer's half of the units folded and pushed, and this rank's half folded while it travels
  // (P161c), the peer's values added. Returns this rank's first unit (rank 1 keeps units [4, 8) of
  // the folded 8, rank 0 [0, 4), as push_reduce2), its half in `half` and at both halves of `v`.
  __device__ __forceinline__ static int fold_push(const float (&acc)[kRegs], uint8_t* smem, uint64_t* red_bars,
                                                  int tid, float (&half)[G::kOutRegs / 2],
                                                  float (&v)[G::kOutRegs]) {
    constexpr int kOut = G::kOutRegs;
    sm90::cluster_wait();  // the peer's barriers are initialised (mma_gemm_kernel)
    push_announce<kThreads, kOut, kUnit>(red_bars, red_bars + 1, tid);
    const bool upper = sm90::cluster_rank() != 0;
    uint32_t recv = PushReduce<kThreads, kOut, kUnit>::recv_after(StagedTile<kSlots / NB>::bytes(kTokens));
    asm volatile("" : "+r"(recv));
    fold_part<kOut / kUnit / 2>(acc, smem, tid, !upper, 0, half);
    push_send<kThreads, kOut / 2>(half, smem + recv, red_bars, red_bars + 1, tid);
    fold_part<kOut / kUnit / 2>(acc, smem, tid, upper, 1, half);
    push_receive<kThreads, kOut / 2>(half, smem + recv, red_bars, tid);
#pragma unroll
    for (int i = 0; i < kOut / 2; ++i) v[i] = v[kOut / 2 + i] = half[i];
    return upper ? kOut / kUnit / 2 : 0;
  }

  // A split tile's outputs (gemm, group_gemm; 3 or more ranks, or 2 not pushed) by output rows
  // (PartialTile, sum_rows_out: docs/perf-notes.md P66), straight to C. The ring is free (main_loop
  // drained it).
  // acc: kOutRegs accumulators (KH = 2: after fold_halves, unit u holding n8 tile unit_tile(u)).
  __device__ __forceinline__ static void reduce_rows(const float (&acc)[G::kOutRegs], uint8_t* smem, int splits,
                                                     const OutView& out, const Tile& tile, int warp_w, int lane,
                                                     int tid) {
    static_assert(NB == 1, "gemm outputs");
    using Part = PartialTile<kSlots>;
    static_assert(Part::bytes(kTokens) <= kSmemBytes, "the partial tile fits in the ring");
    const Part pt(smem, (KH == 2 ? warp_w % 4 : warp_w) * 32, lane);
#pragma unroll
    for (int u = 0; u < G::kOutRegs / kUnit; ++u)
#pragma unroll
      for (int h = 0; h < 2; ++h)  // rows g (registers 0, 1) and g + 8 (2, 3) of m16 tiles 0 and 1
#pragma unroll
        for (int mt = 0; mt < 2; ++mt) {
          const float* x = &acc[(u * 2 + mt) * 4 + 2 * h];
          pt.block(8 * unit_tile(u, warp_w), 16 * mt + 8 * h, x[0], x[1]);
        }
    cluster_sync();
    const int rank = static_cast<int>(sm90::cluster_rank());
    sum_rows_out<kSlots, kThreads>(smem, splits, fp4::kRawScale, out, tile.l, tile.m0, tile.n0,
                                   rank * kTokens / splits, (rank + 1) * kTokens / splits, tid);
    // Every rank's partial tile stays until all have read it. Relaxed: a thread arrives after its
    // loads' values are in its stores, so they are done, and with no fence it does not wait for its
    // stores to C to drain either.
    cluster_sync_relaxed();
  }

  // The tile's outputs from acc: the cluster's split-K reduction first where K is split. The ring
  // is free (main_loop drained it; splitk_reduce's last cluster barrier follows every remote read
  // of it), so the outputs go through it and out by whole rows in 16-byte stores (StagedTile,
  // docs/perf-notes.md P26, P30); a barrier at the end frees it for the next tile's loads.
  // red_bars: push_reduce2's two mbarriers where K is split in 2 and the reduction pushed (else unused).
  // kRows: the reduction by output rows is compiled in (gemm and group_gemm's data-parallel kernels:
  // stream-K's tiles are never split, and dual_gemm's data-parallel kernel, none of whose default
  // plans splits K more than twice, ran 0.4-0.6 % slower with it: docs/perf-notes.md P66).
  // kPairs (KH = 2, 4 ranks, P162): the ranks of a tile summed in pairs through clusters of 2, then
  // quarters through L2 (pair_split_reduce, wp's slots and counts), after the fold.
  template <bool kRows, class Sched, bool kPairs = false>
  __device__ __forceinline__ static void epilogue(const Sched& sched, const Tile& tile, uint8_t* smem,
                                                  float (&acc)[kRegs], int warp_w, int lane, uint64_t* red_bars,
                                                  const WorkPlan* wp = nullptr) {
    using Staged = StagedTile<kSlots / NB>;
    static_assert(Staged::bytes(kTokens) <= kSmemBytes, "the staged tile fits in the ring");
    const GemmEntry& e = sched.entry(tile.group);
    const OutView out{e.args.c, e.args.m, e.args.n};
    const int tid = static_cast<int>(threadIdx.x);
    constexpr int kOut = G::kOutRegs;
    const auto epi = [&](const float(&v)[kOut], int u0, int u1) {
      // The warp's outputs: tokens from the tile's first, columns from the warp's first (32 slots,
      // 16 dual_gemm outputs; KH = 2: warps w and w + 4 share their columns).
      NVFP4_MMA_STAMP(kMtSummed);
      const Staged st(smem, (KH == 2 ? warp_w % 4 : warp_w) * (NB == 1 ? 32 : 16), lane);
#pragma unroll
      for (int u = 0; u < kOut / kUnit; ++u) {
        if (u < u0 || u >= u1) continue;
        const int nt = unit_tile(u, warp_w);
        const float* const x1 = &v[(u * 2) * 4];
        const float* const x2 = &v[(u * 2 + 1) * 4];
#pragma unroll
        for (int h = 0; h < 2; ++h) {  // rows g (accumulator registers 0, 1), rows g + 8 (2, 3)
          if constexpr (NB == 1) {  // m16 tiles 0 and 1: columns 8 h + g and 16 + 8 h + g
            st.block(8 * nt, 8 * h, x1[2 * h] * fp4::kRawScale, x1[2 * h + 1] * fp4::kRawScale);
            st.block(8 * nt, 16 + 8 * h, x2[2 * h] * fp4::kRawScale, x2[2 * h + 1] * fp4::kRawScale);
          } else {  // x1 from m16 tile 0 (B1 rows), x2 from tile 1 (B2 rows): column 8 h + g
            st.block(8 * nt, 8 * h, silu_mul_fast(x1[2 * h] * fp4::kRawScale, x2[2 * h] * fp4::kRawScale),
                     silu_mul_fast(x1[2 * h + 1] * fp4::kRawScale, x2[2 * h + 1] * fp4::kRawScale));
          }
        }
      }
      __syncthreads();
      st.template copy_out<kThreads>(out, tile.l, tile.m0, tile.n0, 8 * KH * u0, 8 * KH * u1, tid);
      __syncthreads();
      NVFP4_MMA_STAMP(kMtStored);
    };
    const int splits = sched.ts.splits;
    const bool push = splits == 2 && sched.ts.push;
    const auto finish = [&](float(&v)[kOut]) {
      if constexpr (kRows) {
        if (splits > 1 && !push && sched.ts.rows) return reduce_rows(v, smem, splits, out, tile, warp_w, lane, tid);
      }
      // (KH = 2 comes here only unpushed: its pushed exchange is below.)
      if (push) sm90::cluster_wait();  // the peer's barriers are initialised (mma_gemm_kernel)
      reduce_split<kThreads, kOut, kUnit, kSmemBytes, Staged::bytes(kTokens)>(v, smem, splits, push, red_bars,
                                                                            push ? red_bars + 1 : nullptr, tid, epi);
    };
    if constexpr (kPairs) {
      // The pair's exchange as the 2-rank plan's, then the quarters through L2 (pair_quarters; P163).
      static_assert(KH == 2, "pairs: the K-halves CTA");
      float half[kOut / 2], v[kOut];  // pair_quarters writes the kept quarter into v
      const int uh = fold_push(acc, smem, red_bars, tid, half, v);
      pair_quarters<kThreads, kOut, kUnit>(v, half, uh, *wp, sched.ts.splits, tid, [] { __syncthreads(); }, epi);
    } else if constexpr (KH == 2) {
      if (push) {
        float half[kOut / 2], v[kOut];  // epi reads only the kept units [u0, u0 + 4)
        const int u0 = fold_push(acc, smem, red_bars, tid, half, v);
        return epi(v, u0, u0 + kOut / kUnit / 2);
      }
      float own[kOut];
      fold_halves(acc, smem, tid, own);
      NVFP4_MMA_STAMP(kMtFolded);
      finish(own);
    } else {
      finish(acc);
    }
  }
};

// kStreamK = false: one unit (a tile, or one K range of it) per CTA, the grid covering every unit.
// kStreamK = true: a persistent grid of resident CTAs, each a run of K steps over one or more
// tiles (gemm_common.cuh WorkPlan, stream_k.hpp), the ring filled afresh per tile. Two
// instantiations rather than one loop for both: inside the loop over tiles ptxas no longer keeps
// the ring's addresses out of the K loop (428 -> 462 SASS instructions per K step).
// kFused (gemm and dual_gemm, data-parallel): the main launch decodes the tokens itself (TokenFuse);
// a kernel of its own, since both main loops in one kernel made ptxas spill (and so the unfused
// kernel stays as it was).
template <class Sched>
constexpr bool fused_kernel_exists() {
  return std::is_same_v<Sched, SingleScheduler>;
}
// kPairs (KH = 2): 4 K ranks of a tile in clusters of 2, reduced by pairs and then through L2.
template <int NB, class Sched, bool kStreamK, bool kFused = false, int W = 4, int KH = 1, bool kPairs = false>
__global__ void __launch_bounds__(Geometry<W, KH>::kThreads, Geometry<W, KH>::kCtasPerSm)
    mma_gemm_kernel(const __half* __restrict__ tokens, Sched sched, const WorkPlan wp, const TokenFuse fuse) {
  extern __shared__ __align__(128) uint8_t smem[];
  static_assert(KH == 1 || !kStreamK, "K halves: data-parallel");
  static_assert(!kPairs || KH == 2, "pairs: the K-halves CTA");
  using K = Kernel<NB, W, KH>;
  constexpr int kThreads = K::kThreads;
  const int warp_w = threadIdx.x >> 5, lane = threadIdx.x & 31;
  float acc[kRegs];
  NVFP4_MMA_STAMP(kMtEntry);
  if constexpr (!kStreamK) {
    (void)wp;
    // push_reduce2's barriers (recv_full, peer_ready), initialised before the cluster's first
    // barrier phase, which every thread arrives at here and waits on before the reduction.
    __shared__ uint64_t red_bars[2];
    const bool push = kPairs || (sched.ts.splits == 2 && sched.ts.push);
    uint64_t* ring = nullptr;  // W = 8: the ring's mbarriers (main_loop_ring)
    if constexpr (W == 8) {
      __shared__ uint64_t ring_bars[2 * K::kStages];
      ring = ring_bars;
      if (threadIdx.x == 0) K::init_ring(ring);
      if (!push) __syncthreads();
    }
    if (push) {
      if (threadIdx.x == 0) {
        sm90::mbar_init(&red_bars[0], 1);
        sm90::mbar_init(&red_bars[1], 1);
        sm90::mbar_init_fence();
      }
      __syncthreads();
      sm90::cluster_arrive_relaxed();
    }
    const Tile tile = sched.at(static_cast<int>(blockIdx.x));
    if constexpr (kFused) {  // this CTA's share of the token pre-pass's work (TokenFuse)
      static_assert(fused_kernel_exists<Sched>(), "gemm and dual_gemm only");
      const auto fused = [&] {
        // The grid's warps dealt to the CTAs in turn (dealt_tid, P165).
        decode_token_share(sched.entry(0), fuse, dealt_tid(warp_w, lane), int64_t{gridDim.x} * kThreads);
        NVFP4_MMA_STAMP(kMtShareStored);
        __syncthreads();
        if (threadIdx.x == 0) wait_count(fuse.arrivals, count_arrival(fuse.arrivals, gridDim.x));
        NVFP4_MMA_STAMP(kMtCounted);
        __syncthreads();  // every thread's token copies after the wait (cp.async: the generic proxy)
      };
      if constexpr (W == 8)
        K::main_loop_ring(sched, tokens, tile, smem, acc, warp_w, lane, static_cast<int>(threadIdx.x), ring, fused);
      else
        K::main_loop(sched, tokens, tile, smem, acc, warp_w, lane, static_cast<int>(threadIdx.x), fused);
    } else {
      (void)fuse;
      if constexpr (W == 8)
        K::main_loop_ring(sched, tokens, tile, smem, acc, warp_w, lane, static_cast<int>(threadIdx.x), ring);
      else
        K::main_loop(sched, tokens, tile, smem, acc, warp_w, lane, static_cast<int>(threadIdx.x));
    }
    // The tile again rather than kept live through the main loop (registers are at the cap there).
    if constexpr (kPairs)
      K::template epilogue<false, Sched, true>(sched, sched.at(static_cast<int>(blockIdx.x)), smem, acc, warp_w, lane,
                                               red_bars, &wp);
    else
      K::template epilogue<NB == 1>(sched, sched.at(static_cast<int>(blockIdx.x)), smem, acc, warp_w, lane, red_bars);
  } else {
    (void)fuse;
    const auto sync = [] { __syncthreads(); };
    // W = 8: the ring's mbarriers, carried across the CTA's tiles, in the dynamic shared memory (at
    // a fixed offset from its base, so that the K loop needs no register of their own: with a
    // static array it spilled), and the K steps run through them so far.
    uint64_t* ring = nullptr;
    int ring_steps = 0;
    if constexpr (W == 8) {
      ring = reinterpret_cast<uint64_t*>(smem + K::kRingBytes + K::kParkBytes);
      if (threadIdx.x == 0) K::init_ring(ring);
      __syncthreads();
    }
    // A stream-K plan: next_work's data-parallel way is dead code here. Said for W = 8, whose
    // registers it frees (without it ptxas spilled 8 bytes around the K loop); the 4-warp kernels
    // are left as they were (with it, gemm's spilled 16).
    if constexpr (W == 8) __builtin_assume(wp.sk.ctas > 0);
    WorkCursor cur = work_start(wp);
    Tile first;
    while (next_work(sched, wp, cur, first)) {
      int tid;
      asm volatile("mov.u32 %0, %%tid.x;" : "=r"(tid));
      if constexpr (W == 8) {
        K::park_cursor(smem, cur.it);
        ring_steps = K::template main_loop_ring<true>(sched, tokens, first, smem, acc, warp_w, lane, tid, ring, nullptr,
                                                      ring_steps);
        cur.it = K::unpark_cursor(smem);
      } else {
        K::main_loop(sched, tokens, first, smem, acc, warp_w, lane, tid);
      }
      int peer_end;
      const SegmentRole role = work_role(sched, wp, cur, peer_end);
      if (role == SegmentRole::kPartial) {  // a later run of this tile, summed by its owner
        store_partial<kThreads>(acc, wp, static_cast<int>(threadIdx.x), sync);
        continue;
      }
      // W = 8: 16 float4 of a peer per batch (2 rounds of loads for its 128 KiB partial, not 8: the
      // K loop's fragments are dead here, so the registers are there).
      if (role == SegmentRole::kOwner)
        add_partials<kThreads, W == 8 ? 16 : 0>(acc, wp, peer_end, static_cast<int>(threadIdx.x), sync);
      K::template epilogue<false>(sched, work_tile(sched, wp, cur), smem, acc, warp_w, lane, nullptr);  // no split
    }
  }
}

// ---- host ----

// Empty when the tensor-core GEMM can run every GEMM of `s` here, else why not.
inline std::string unsupported(const DeviceInfo& dev, const Shape& s) {
  return unsupported_family(dev, s, 80, "needs compute capability 8.0 or newer (mma.sync FP16, cp.async, ldmatrix)",
                            Narrow::kSmemBytes, "its 82 KB of shared memory exceed the per-block limit", kBK,
                            "needs K % 64 == 0");
}

// The schedule's cost model, in K steps of a CTA that shares its SM with another (2 CTAs per SM).
// Data-parallel (P65, fitted on an H100 from forced split counts, docs/perf-notes.md): each split
// count's units priced by occupancy_cost (a lone CTA's K step kLoneStep of a shared one; the launch
// at the lone rate only where no SM gets two CTAs), plus the split-K reduction: kSplitSteps2 for 2
// ranks (pushed), kSplitStepsMany for 3 or more (pulled: 4.5-7 us measured, about flat in the
// rank count; the reduction by output rows, P66, took ~1-1.5 us off that, but the price stays:
// below ~2.3 steps gemm 128x7168x2048 would take 4 splits, measured slower than its 2, 23.4
// against 22.8 us). Stream-K (P20): kPeerSteps per partial tile (64 KiB, read by its owner in 8
// dependent rounds of L2 loads) an owner adds and kStoreSteps for the one a CTA writes, and its K
// step costs kStreamKStep shared ones (4-8 % more SASS per step, and CTAs that walk K out of step
// with each other). The 8-warp CTA (Geometry<8>, one per SM, its ring on mbarriers) runs a K step
// of its 256 weight slots in kWideStep shared 4-warp steps, wherever it runs (it never shares its
// SM): measured 0.88 (gemm 128x7168x16384, time less ~11 us of pre-pass and reduction) to 0.97
// (dual_gemm 512x4096x7168, one unsplit wave either way) on an H100 (docs/perf-notes.md P95);
// 0.93 picks the faster CTA on all seven gemm and dual_gemm benchmark shapes.
inline constexpr double kLoneStep = 0.58;
inline constexpr double kWideStep = 0.93;
// The K-halves CTA (Geometry<8, 2>, gemm: 128 weight rows, one CTA per SM, two warps per
// scheduler): its K step of 128 rows in kHalvesStep shared 4-warp steps. Measured on an H200
// (docs/perf-notes.md P161): 0.688 us per step against the lone 4-warp CTA's 0.846, i.e. ~0.47;
// 0.50 prices in its fold and keeps the order the three gemm benchmark shapes measured (at 0.47
// gemm 128x7168x16384 would take it, 6.7 % slower than its 8-warp plan, whose kWideStep is
// itself ~7 % dear there).
inline constexpr double kHalvesStep = 0.50;
// Its 4 K ranks reduced in pairs through clusters of 2, then quarters through L2 (P162): a guess
// before measuring, between the pushed 2-rank exchange and the pulled many-rank one.
inline constexpr double kPairSteps = 2.0;
inline constexpr double kSplitSteps2 = 1.0;
inline constexpr double kSplitStepsMany = 3.5;
inline constexpr double kPeerSteps = 1.5;
inline constexpr double kStoreSteps = 0.5;
inline constexpr double kStreamKStep = 1.2;

// The data-parallel split count of `lp` (1 to kMaxSplits, at least kMinSplitSteps K steps per split
// of the GEMM with the fewest; past 1 only counts whose clusters all run in one wave, as before
// P65) that the model above prices lowest, and that price. `pairs` (the K-halves CTA's pairs
// kernel, P162, or null): 4 splits run in clusters of 2 and reduce in pairs, at kPairSteps.
inline constexpr int kMinSplitSteps = 4;
template <class G, class Kernel>
std::pair<int, double> cheapest_splits(const LaunchPlan& lp, Kernel kernel, Kernel pairs = nullptr) {
  constexpr bool wide = G::kCtasPerSm == 1;
  constexpr double kStep = G::kKHalves == 2 ? kHalvesStep : kWideStep;  // one CTA per SM
  const int min_k = min_k_steps(lp);
  std::pair<int, double> best{1, 1e300};
  for (int s = 1; s <= kMaxSplits && (s == 1 || (min_k / s >= kMinSplitSteps && splits_supported())); ++s) {
    LaunchPlan t = lp;
    t.ts.splits = s;
    const bool paired = s == 4 && pairs != nullptr;
    const int64_t resident = paired ? resident_ctas(pairs, G::kThreads, G::kSmemBytes, 2)
                                    : resident_ctas(kernel, G::kThreads, G::kSmemBytes, s);
    if (s > 1 && t.tiles * s > resident) continue;
    const std::vector<double> steps = unit_steps(t, [](const GemmEntry&, int64_t) { return 1.0; });
    const double run = wide ? kStep * occupancy_cost(steps, resident, resident, 1.0)
                            : occupancy_cost(steps, lone_ctas(kernel, G::kThreads, G::kSmemBytes, s), resident, kLoneStep);
    const double cost = run + (s == 1 ? 0.0 : s == 2 ? kSplitSteps2 : paired ? kPairSteps : kSplitStepsMany);
    if (cost < best.second) best = {s, cost};
  }
  return best;
}

// gemm and dual_gemm (one GEMM, SingleScheduler) and group_gemm (GroupScheduler): a token
// pre-pass over every GEMM, then one main-loop launch: data-parallel (one CTA per unit, K split
// over clusters where the tiles do not fill one wave) or stream-K over the resident CTAs,
// whichever the cost model above prefers (NVFP4_TENSOR_CORE_SCHED=data|stream-k forces one,
// NVFP4_TENSOR_CORE_SK_CTAS the stream-K CTA count). gemm's and dual_gemm's data-parallel launches
// choose between the 4-warp CTA and the 8-warp one by the same model (NVFP4_TENSOR_CORE_WARPS=4|8
// forces it), as do their stream-K launches (P96); group_gemm runs 4 warps.
template <int NB, bool kGrouped>
class MmaRunner final : public Runner {
  using Sched = std::conditional_t<kGrouped, GroupScheduler, SingleScheduler>;
  static constexpr bool kWideExists = fused_kernel_exists<Sched>();
  using KernelFn = decltype(&mma_gemm_kernel<NB, Sched, false>);

 public:
  MmaRunner(const CaseView& c, cudaStream_t stream) {
    const std::vector<GemmArgs> gemms = gemm_args_of(c, NB);
    // The split count the model prices lowest (NVFP4_TENSOR_CORE_SPLITS forces one, for measuring).
    // A forced split count is a data-parallel launch unless the schedule is forced too.
    LaunchPlan narrow = plan_for<4>(gemms);
    auto [splits, dp_cost] = cheapest_splits<Narrow>(narrow, kernel_of<4>());
    narrow.ts.splits = splits;
    LaunchPlan lp = narrow;
    // "8k": the K-halves CTA (Geometry<8, 2>, gemm only).
    const std::string warps = forced_choice("NVFP4_TENSOR_CORE_WARPS", {"4", "8", "8k"});
    // NVFP4_TENSOR_CORE_PAIRS=0 keeps the K-halves CTA's 4 ranks off the pairs reduction (P162).
    const bool pairs_allowed = forced_int("NVFP4_TENSOR_CORE_PAIRS", 0, 1, 1) == 1;
    // The 8-warp CTA's plan (gemm and dual_gemm), for both the data-parallel and the stream-K choice.
    LaunchPlan wide;
    if constexpr (kWideExists) {
      wide = plan_for<8>(gemms);
      const auto [wsplits, wcost] = cheapest_splits<Geometry<8>>(wide, kernel_of<8>());
      if (warps == "8" || (warps.empty() && wcost < dp_cost)) {
        lp = wide;
        lp.ts.splits = splits = wsplits;
        dp_cost = wcost;
        m_warps = 8;
      }
    } else if (warps == "8" || warps == "8k") {
      throw std::invalid_argument("NVFP4_TENSOR_CORE_WARPS=" + warps + ": the 8-warp CTA runs gemm and dual_gemm only");
    }
    // The K-halves CTA (gemm), data-parallel only.
    if constexpr (kHalvesExists) {
      // At 4 K splits its ranks reduce in pairs (P162) unless NVFP4_TENSOR_CORE_PAIRS=0.
      LaunchPlan halves = plan_for<8, 2>(gemms);
      const auto [hsplits, hcost] = cheapest_splits<Geometry<8, 2>>(
          halves, kernel_of<8, false, 2>(), pairs_allowed ? kernel_of<8, false, 2, true>() : nullptr);
      if (warps == "8k" || (warps.empty() && hcost < dp_cost)) {
        lp = halves;
        lp.ts.splits = splits = hsplits;
        dp_cost = hcost;
        m_warps = 8;
        m_halves = true;
      }
    } else if (warps == "8k") {
      throw std::invalid_argument("NVFP4_TENSOR_CORE_WARPS=8k: the K-halves CTA runs gemm only");
    }
    force_splits(lp, "NVFP4_TENSOR_CORE_SPLITS");
    if (lp.ts.splits != splits) dp_cost = 0;
    // The K-halves CTA's 4 ranks reduce in pairs wherever the launch is resident in clusters of 2
    // (else by the cluster of 4's pulled reduction).
    if constexpr (kHalvesExists) m_pairs = m_halves && pairs_allowed && lp.ts.splits == 4 && pairs_fit(lp);
    const std::string sched = forced_schedule("NVFP4_TENSOR_CORE_SCHED");
    // Stream-K over the resident CTAs of either width (P96: the 8-warp one at kWideStep per step,
    // its partial tiles twice the 4-warp ones' size and price), where the model prices it below
    // the data-parallel plan or the schedule is forced.
    StreamKPlan skp;
    int sk_warps = 4;
    if (sched != "data" && warps != "8k") {
      if (warps != "8") {
        const int64_t resident = resident_ctas(kernel_of<4, true>(), Narrow::kThreads, Narrow::kSmemBytes, 1);
        skp = plan_stream_k(narrow, resident, kStreamKStep, kPeerSteps, kStoreSteps, "NVFP4_TENSOR_CORE_SK_CTAS");
      }
      if constexpr (kWideExists) {
        if (warps != "4") {
          using Wide = Geometry<8>;
          const int64_t resident = resident_ctas(kernel_of<8, true>(), Wide::kThreads, Wide::kSmemBytes, 1);
          const StreamKPlan wide_sk = plan_stream_k(wide, resident, kStreamKStep * kWideStep, 2 * kPeerSteps,
                                                    2 * kStoreSteps, "NVFP4_TENSOR_CORE_SK_CTAS");
          if (wide_sk.sk.ctas > 0 && wide_sk.cost < skp.cost) {
            skp = wide_sk;
            sk_warps = 8;
          }
        }
      }
    }
    if (warps == "8k" && sched == "stream-k")
      throw std::invalid_argument("NVFP4_TENSOR_CORE_WARPS=8k: the K-halves CTA runs data-parallel plans only");
    const bool stream_k = skp.sk.ctas > 0 && (skp.cost < dp_cost || sched == "stream-k");
    if (stream_k) {
      lp = sk_warps == 8 ? wide : narrow;
      lp.ts.splits = 1;
      m_warps = sk_warps;
      m_halves = m_pairs = false;
    }
    m_tokens = TokenWorkspace(lp, !stream_k, stream);
    m_sched = scheduler_for<Sched>(lp, m_tokens.table);
    // NVFP4_TENSOR_CORE_PUSH=0|1 forces the 2-rank split-K reduction: pulled (splitk_reduce) or pushed (push_reduce2).
    m_sched.ts.push = forced_int("NVFP4_TENSOR_CORE_PUSH", 0, 1, 1) == 1;
    // NVFP4_TENSOR_CORE_ROWS=0|1 forces the other split-K reductions of gemm and group_gemm: pulled
    // into the accumulators (splitk_reduce) or by output rows (sum_rows_out); dual_gemm always pulls.
    m_sched.ts.rows = forced_int("NVFP4_TENSOR_CORE_ROWS", 0, 1, 1) == 1;
    if (stream_k) {
      m_blocks = skp.sk.ctas;
      m_work = StreamKWorkspace(skp.sk, kRegs * threads(), stream);
      m_kernel = m_warps == 8 ? kernel_of<8, true>() : kernel_of<4, true>();
    } else {
      m_blocks = m_sched.blocks();
      m_work.plan.units = static_cast<int>(m_blocks);
      m_kernel = m_pairs    ? kernel_of<8, false, 2, true>()
                 : m_halves ? kernel_of<8, false, 2>()
                 : m_warps == 8 ? kernel_of<8>()
                                : kernel_of<4>();
      if (m_pairs) {  // a slot per unit (the quarters through L2), then a count per tile
        m_partials = global_split_workspace(m_blocks, Geometry<8, 2>::kOutRegs * Geometry<8, 2>::kThreads, lp.tiles,
                                            m_work.plan, stream);
        CUDA_CHECK(cudaStreamSynchronize(stream));
      }
    }
    // gemm and dual_gemm, data-parallel, the whole grid resident: the main launch decodes the tokens
    // itself (TokenFuse, docs/perf-notes.md P71, as `persistent`) where TokenWorkspace::wants_fused
    // says so; NVFP4_TENSOR_CORE_TOKENS=fused|prepass forces it.
    if constexpr (kWideExists) {
      const KernelFn fused = m_pairs       ? fused_halves<true>()
                             : m_halves    ? fused_halves()
                             : m_warps == 8 ? mma_gemm_kernel<NB, Sched, false, true, 8>
                                            : mma_gemm_kernel<NB, Sched, false, true>;
      if (m_tokens.wants_fused("NVFP4_TENSOR_CORE_TOKENS", m_blocks * threads()) && !stream_k &&
          m_blocks <= resident_ctas(fused, threads(), smem(), cluster())) {
        m_tokens.fuse_into_main(stream);
        m_kernel = fused;
      }
    }
    m_plan = work_text(lp, stream_k, m_blocks) + (m_halves ? " of 8 warps in K halves" : m_warps == 8 ? " of 8 warps" : "") +
             (m_pairs ? ", pairs through DSMEM then L2" : "") + m_tokens.plan_text();
  }
  void run(cudaStream_t stream) override {
#if NVFP4_TRACE
    arm_trace(m_trace, static_cast<size_t>(m_blocks) * kMtSlots, g_mma_trace, stream);
    arm_trace(m_push_trace, static_cast<size_t>(m_blocks) * 3, g_push_trace, stream);
#endif
    m_tokens.decode(stream);
    launch_clustered(m_kernel, m_blocks, threads(), smem(), cluster(), stream,
                     static_cast<const __half*>(m_tokens.data()), m_sched, m_work.plan, m_tokens.fuse());
  }
  std::string plan() const override { return m_plan; }

 private:
  // The K-halves CTA (Geometry<8, 2>): gemm's data-parallel kernels only.
  static constexpr bool kHalvesExists = kWideExists && NB == 1;
  // The kernel of W warps (W = 8: gemm and dual_gemm only; KH = 2: gemm only): data-parallel and
  // not fused, or stream-K.
  template <int W, bool kStreamK = false, int KH = 1, bool kPairs = false>
  static KernelFn kernel_of() {
    if constexpr (KH == 2 && kHalvesExists && !kStreamK)
      return mma_gemm_kernel<NB, Sched, false, false, 8, 2, kPairs>;
    else if constexpr (W == 8 && kWideExists)
      return mma_gemm_kernel<NB, Sched, kStreamK, false, 8>;
    else
      return mma_gemm_kernel<NB, Sched, kStreamK>;
  }
  template <bool kPairs = false>
  static KernelFn fused_halves() {
    if constexpr (kHalvesExists)
      return mma_gemm_kernel<NB, Sched, false, true, 8, 2, kPairs>;
    else
      return nullptr;
  }
  template <int W, int KH = 1>
  static LaunchPlan plan_for(const std::vector<GemmArgs>& gemms) {
    using G = Geometry<W, KH>;
    return plan_launch(kernel_of<W, false, KH>(), G::kThreads, G::kSmemBytes, gemms, kTokens, G::kSlots / NB, kBK, kMinSplitSteps);
  }
  TokenWorkspace m_tokens;
  Sched m_sched;
  StreamKWorkspace m_work;  // its plan: stream-K or data-parallel (units only)
  // The launch's CTA: its threads and dynamic shared memory follow from m_warps.
  int threads() const { return 32 * m_warps; }
  size_t smem() const {
    return m_halves ? Geometry<8, 2>::kSmemBytes : m_warps == 8 ? Geometry<8>::kSmemBytes : Narrow::kSmemBytes;
  }
  KernelFn m_kernel = nullptr;
  int m_warps = 4;
  bool m_halves = false;  // the K-halves CTA (m_warps 8)
  bool m_pairs = false;   // ...its 4 ranks in pairs through clusters of 2, then L2 (P162)
  DeviceBuffer m_partials;  // m_pairs: the slots and the counts
  int cluster() const { return m_pairs ? 2 : static_cast<int>(m_sched.ts.splits); }
  // Whether `t` (the K-halves CTA at 4 splits) runs resident in clusters of 2 and K is long enough.
  static bool pairs_fit(const LaunchPlan& t) {
    return splits_supported() && min_k_steps(t) / 4 >= kMinSplitSteps &&
           t.tiles * 4 <= resident_ctas(kernel_of<8, false, 2, true>(), Geometry<8, 2>::kThreads,
                                        Geometry<8, 2>::kSmemBytes, 2);
  }
#if NVFP4_TRACE
  DeviceBuffer m_trace;       // the last launch's stamps, [CTA][kMtSlots]
  DeviceBuffer m_push_trace;  // push_reduce2's, [CTA][3]

 public:
  ~MmaRunner() override { append_trace(m_plan, m_trace, kMtSlots, &m_push_trace, 3); }
#endif
  int64_t m_blocks = 0;
  std::string m_plan;
};

}  // namespace nvfp4::gemm::mma
