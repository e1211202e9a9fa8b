// SPDX-License-Identifier: Apache-2.0
// gemm_tokens.cuh: the token pre-pass of the tensor-core GEMM-family variants (`tensor-core`,
// `persistent`): A (tokens, M x K) -> exact FP16 a*sa*2^-14 (raw, P172) in a workspace [L][M_pad][K] per GEMM of
// the launch, each 64-element chunk in "fragment order": for scale block t (elements 16t..16t+15)
// decoded as decode_block16_raw does (8 half2 h[0..7]), k slots 16j + 2t, +1 hold h[2j] and
// 16j + 8 + 2t, +1 hold h[2j+1]: the order in which the shift-trick decode (core/fp4_decode.cuh)
// hands lane (g, t) its weights for the A fragments of k16 steps j = 0..3 (mma.sync m16n8k16 and
// wgmma m64nNk16 share that fragment layout).
// The main loops decode the weights in that order, so both operands agree on which element sits
// in which k slot (any permutation of K is allowed: every value already carries its scale).
// A is small in the GEMM family (M = 128..512 tokens): decoding it once keeps the main loops'
// integer work on the weights. Timed as part of the variant.
#pragma once

#include <cuda_fp16.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/fp4_decode.cuh"
#include "gemm_launch.cuh"
#include "prefetch_plan.hpp"
#include "wide_tokens.hpp"

namespace nvfp4::gemm {

// One 16-element token block (thread t of a chunk's 4 holds scale block t of that chunk), as
// fetched from global memory. live: a row below m (rows in [m, m_pad) and chunks past the end
// decode as zeros).
struct TokenBlock {
  uint2 packed{};
  uint32_t scale = 0;
  bool live = false;
};

// What fetching a GEMM's tokens reads of its entry, for a grouped launch that takes its groups'
// sources from its parameters (the pre-pass, TokenJob::src; a main launch that decodes its tokens
// itself, TokenGroups): its tokens and their scales, its first chunk in the workspace
// (tok_offset / kTokenChunk), K, M, and the padded rows and chunks per row as Divisors.
struct TokenSource {
  const uint8_t* a = nullptr;
  const uint8_t* sfa = nullptr;
  int64_t first_chunk = 0, k = 0, m = 0;
  Divisor m_pad = 1, tok_chunks = 1;
};
inline TokenSource token_source(const GemmEntry& e) {
  return TokenSource{e.args.a, e.args.sfa, e.tok_offset / kTokenChunk, e.args.k, e.args.m, e.m_pad, e.tok_chunks};
}

// What the pre-pass decodes: every GEMM of `entries` (device table, `groups` entries, token regions
// back to back, `chunks` 64-element chunks in all; `first` = the table's first entry, read from the
// kernel's parameters when there is one GEMM) into `out`; and what it prefetches into L2. With at
// most kPrepassGroups groups their token sources ride in the parameters too (`src`): a
// chunk's group is then a compare of first chunks in the constant bank, no table read from global
// memory before the token loads (docs/perf-notes.md P102); more groups scan the table.
inline constexpr int kPrepassGroups = 16;
struct TokenJob {
  const GemmEntry* entries = nullptr;
  GemmEntry first;
  int groups = 1;
  int64_t chunks = 0;
  __half* out = nullptr;
  PrefetchPlan prefetch;
  TokenSource src[kPrepassGroups];  // groups <= kPrepassGroups
};

// Loads the group table's chunk starts (entries[g].tok_offset / kTokenChunk) into shared memory
// (`starts`, kMaxSharedGroups entries: problem.cpp allows no more groups), once per CTA, so that a
// chunk's group is found by a scan of shared memory rather than a chain of global loads. Every
// thread of the CTA calls it (one __syncthreads inside).
inline constexpr int kMaxSharedGroups = 1024;
__device__ __forceinline__ const int64_t* load_group_chunks(const TokenJob& job, int64_t* starts) {
  for (int g = threadIdx.x; g < job.groups; g += blockDim.x) starts[g] = job.entries[g].tok_offset / kTokenChunk;
  __syncthreads();
  return starts;
}

// The fields fetch_block_of reads, of an entry or a TokenSource.
struct TokenFields {
  __device__ static const uint8_t* a(const GemmEntry& e) { return e.args.a; }
  __device__ static const uint8_t* sfa(const GemmEntry& e) { return e.args.sfa; }
  __device__ static int64_t first_chunk(const GemmEntry& e) { return e.tok_offset / kTokenChunk; }
  __device__ static int64_t k(const GemmEntry& e) { return e.args.k; }
  __device__ static int64_t m(const GemmEntry& e) { return e.args.m; }
  __device__ static const uint8_t* a(const TokenSource& s) { return s.a; }
  __device__ static const uint8_t* sfa(const TokenSource& s) { return s.sfa; }
  __device__ static int64_t first_chunk(const TokenSource& s) { return s.first_chunk; }
  __device__ static int64_t k(const TokenSource& s) { return s.k; }
  __device__ static int64_t m(const TokenSource& s) { return s.m; }
};

// Where `chunk` (a chunk of the GEMM of e: a GemmEntry or a TokenSource) sits in A: its row over
// batches (r = batch * M + row) and its chunk within that row; false for a padding row (rows in
// [m, m_pad)). 32-bit index arithmetic: a GEMM's chunk count, chunks per row and padded rows fit
// (too_large); the divisions by multipliers computed on the host (Divisor: no division sequence
// before the loads).
template <class E>
__device__ __forceinline__ bool token_place(const E& e, int64_t chunk, int64_t& r, int64_t& ch) {
  using F = TokenFields;
  const int local = static_cast<int>(chunk - F::first_chunk(e));
  const int row_all = e.tok_chunks.div(local);  // over batches
  const int b = e.m_pad.div(row_all), row = row_all - b * e.m_pad;
  ch = local - row_all * e.tok_chunks;
  r = int64_t{b} * F::m(e) + row;
  return row < F::m(e);
}

// The block of `chunk` held by this thread (scale block threadIdx.x % 4 of the chunk).
template <class E>
__device__ __forceinline__ TokenBlock fetch_block_of(const E& e, int64_t chunk) {
  using F = TokenFields;
  TokenBlock blk;
  const int64_t k = F::k(e);
  int64_t r, ch;
  if (token_place(e, chunk, r, ch)) {
    const int64_t sb = ch * 4 + (threadIdx.x & 3);
    blk.packed = *reinterpret_cast<const uint2*>(F::a(e) + r * (k / 2) + sb * 8);
    blk.scale = F::sfa(e)[r * (k / 16) + sb];
    blk.live = true;
  }
  return blk;
}

// A block's 16 values a*sa as 8 half2 in the decode order (zeros where the block is not live);
// kRaw: a*sa*2^-14, raw as the weights are (`persistent`, whose epilogues multiply the dot products
// by kRawScale2; docs/perf-notes.md P172), which saves the multiply by 2^14. Exact either way: a*sa
// is a multiple of 2^-10 and at most 2688, so a*sa*2^-14 is a multiple of 2^-24, FP16's subnormal step.
template <bool kRaw = false>
__device__ __forceinline__ void decode_token_block(const TokenBlock& blk, uint32_t (&h)[8]) {
#pragma unroll
  for (int i = 0; i < 8; ++i) h[i] = 0;
  if (blk.live) {
    fp4::decode_block16_raw(blk.packed, fp4::e4m3_to_half2_bcast(blk.scale), h);  // a*sa*2^-14, exact
    if constexpr (!kRaw) {
      const __half2 unraw = __float2half2_rn(fp4::kRawScale);
#pragma unroll
      for (int i = 0; i < 8; ++i) h[i] = fp4::hmul2_u32(h[i], unraw);  // exact: a*sa, at most 2688
    }
  }
}

// Element i of an array in a kernel's parameters, by compares: an index known only at run time
// would copy the array to local memory.
template <class T, int N>
__device__ __forceinline__ T param_at(const T (&a)[N], int i) {
  T v = a[0];
#pragma unroll
  for (int x = 1; x < N; ++x)
    if (x == i) v = a[x];
  return v;
}

inline constexpr int kMaxStreamGroups = 4;  // GEMMs a launch with decoder CTAs decodes (= kMaxFuseGroups)

// ---- the pre-pass's work inside the main launch (docs/perf-notes.md P71) ----
// One GEMM (`persistent` gemm, `tensor-core` gemm and dual_gemm), data-parallel, every CTA of the
// launch resident at once (the host checks): the decoding threads of every CTA (`persistent`: its
// consumers) decode an equal share of the token blocks straight
// into the workspace (no staging: each thread stores its block's 8 words to their fragment-order
// slots), the CTA counts itself on `arrivals` once its stores are done (count_arrival with n =
// gridDim.x: a count never reset, gemm_common.cuh), and only the token copies wait for it
// (wait_count, wait_tokens); the weights' and scales' copies leave at once.
struct TokenFuse {
  uint32_t* out = nullptr;                 // the workspace, as words of two FP16
  int64_t chunks = 0;                      // its kTokenChunk-element chunks
  unsigned long long* arrivals = nullptr;  // null: the pre-pass launch decoded the tokens
  // Decoder CTAs in the main launch (`persistent` gemm's and group_gemm's kStream kernels,
  // docs/perf-notes.md P104, P108): CTAs main_ctas.. decode the tokens group by group (kStreamSteps
  // K steps of a rank's range); for GEMM g of the launch (of `gemms`), ready[ready_at[g] + s] counts
  // the pieces (decode_token_stream's rows of a group) done of the group that starts at its K step s,
  // never reset: launch n waits for (n + 1) x pieces[g], n from `launches`, which every main CTA's
  // token warp counts once. null: no decoder CTAs. rank_groups: the most groups of any rank.
  unsigned* ready = nullptr;
  unsigned long long* launches = nullptr;
  int main_ctas = 0, rank_groups = 0, gemms = 1;
  int pieces[kMaxStreamGroups] = {}, ready_at[kMaxStreamGroups] = {};
  // The first local_groups groups of every rank are decoded by each main CTA's consumers into its
  // own ring (LocalTokens, P105), not by the decoder CTAs, whose work starts at group
  // local_groups.
  int local_groups = 0;
  // Fused launches (arrivals set, no decoder CTAs): the weights' and scale atoms' copies of a CTA's
  // first weights_ahead K steps leave at entry, the rest once the CTA's own share of the decode is
  // counted (its fence done), so that the opening burst does not queue ahead of the share's stores
  // (docs/perf-notes.md P126, kWeightsAhead). 0: no hold.
  int weights_ahead = 0;
};
// A grouped launch (group_gemm, P74) fuses only with at most kMaxFuseGroups groups, whose token
// sources then come with the parameters of its kernel (a group table in global memory would put
// its DRAM round trip before every thread's first token load); the other kernels take the empty
// NoTokenGroups (TokenGroupsFor).
inline constexpr int kMaxFuseGroups = 4;
static_assert(kMaxFuseGroups == kMaxStreamGroups, "the fused and the streamed group kernels take as many GEMMs");
static_assert(kHeldGroups == kMaxStreamGroups, "the fused and the streamed group kernels hold their group table (HeldEntries)");
struct TokenGroups {
  int groups = 0;  // group g's tokens are group[g]'s
  TokenSource group[kMaxFuseGroups];
};
struct NoTokenGroups {};
template <bool kGrouped>
using TokenGroupsFor = std::conditional_t<kGrouped, TokenGroups, NoTokenGroups>;

// Thread `tid` of the grid's `threads` decoding threads: blocks tid, tid + threads, ... of the
// launch's tokens, each fetched by fetch(chunk) (a TokenBlock), kFuseBatch at a time before any is
// decoded (one DRAM round trip per batch).
inline constexpr int kFuseBatch = 4;
// `stage`: 0, or the shared-memory address of 1 KiB of the calling warp's own (every lane passes
// the same), which the chunks then pass through so that they leave as 16-byte stores, each quad of
// lanes one whole 128-byte chunk (the 4-byte stores of fragment order, 8 per block, left the
// count's GPU-scope fence ~1-2 us of acknowledgements to wait for: docs/perf-notes.md P90). In
// shared memory chunk c of the warp's 8 has its 16-byte unit q at q ^ c (no bank conflicts on
// either side); the caller fences the async proxy before that memory is copied into.
// kBatch: the blocks fetched at a time (a smaller register budget takes fewer); kRaw: as
// decode_token_block.
template <int kBatch = kFuseBatch, bool kRaw = false, class Fetch>
__device__ __forceinline__ void decode_token_share(Fetch&& fetch, const TokenFuse& f, int64_t tid, int64_t threads,
                                                   uint32_t stage = 0) {
  const int64_t blocks = f.chunks * 4;
  const int t = threadIdx.x & 3;  // == tid & 3: threads and the CTA's first thread are multiples of 4
  const int c = (threadIdx.x >> 2) & 7;  // the lane's chunk among the warp's 8
  // Staged, a warp runs the loops as one: its lanes' blocks are consecutive (tid % 32 is the lane).
  const int lane = stage != 0 ? static_cast<int>(threadIdx.x & 31) : 0;
  for (int64_t b0 = tid; b0 - lane < blocks; b0 += kBatch * threads) {
    TokenBlock blk[kBatch];
#pragma unroll
    for (int i = 0; i < kBatch; ++i)
      if (b0 + i * threads < blocks) blk[i] = fetch((b0 + i * threads) >> 2);
#pragma unroll
    for (int i = 0; i < kBatch; ++i) {
      const int64_t b = b0 + i * threads;
      if (stage != 0) {  // the warp goes on while its first lane's block is below `blocks`, so every lane
                         // reaches the __syncwarp()s: lanes past it decode zeros and store nothing
        if (b - lane >= blocks) break;
      } else if (b >= blocks) {
        break;
      }
      uint32_t h[8];
      decode_token_block<kRaw>(blk[i], h);
      if (stage != 0) {
        // Fragment order: word 4q + t of the chunk (unit q) holds h[q] of scale block t.
        const uint32_t row = stage + c * 128 + t * 4;
#pragma unroll
        for (int q = 0; q < 8; ++q)
          asm volatile("st.shared.u32 [%0], %1;" ::"r"(row + ((q ^ c) << 4)), "r"(h[q]) : "memory");
        __syncwarp();
        uint4 v[2];
#pragma unroll
        for (int k = 0; k < 2; ++k)
          asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                       : "=r"(v[k].x), "=r"(v[k].y), "=r"(v[k].z), "=r"(v[k].w)
                       : "r"(stage + c * 128 + (((2 * t + k) ^ c) << 4))
                       : "memory");
        __syncwarp();
        if (b < blocks) {
          uint4* dst = reinterpret_cast<uint4*>(f.out + (b >> 2) * (kTokenChunk / 2)) + 2 * t;
          dst[0] = v[0];
          dst[1] = v[1];
        }
      } else {
        // Fragment order: word 8j + 4u + t of the chunk holds h[2j + u] (as the staged path's units).
        uint32_t* dst = f.out + (b >> 2) * (kTokenChunk / 2) + t;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          dst[8 * j] = h[2 * j];
          dst[8 * j + 4] = h[2 * j + 1];
        }
      }
    }
  }
}

// One GEMM's tokens (gemm, dual_gemm): its entry from the kernel's parameters.
template <int kBatch = kFuseBatch, bool kRaw = false>
__device__ __forceinline__ void decode_token_share(const GemmEntry& e, const TokenFuse& f, int64_t tid,
                                                   int64_t threads, uint32_t stage = 0) {
  decode_token_share<kBatch, kRaw>([&](int64_t chunk) { return fetch_block_of(e, chunk); }, f, tid, threads, stage);
}
// The share's thread index of lane `lane` of the CTA's warp `warp` when the grid's warps are dealt
// to the CTAs in turn (warp w of CTA c is warp w * gridDim.x + c of the share; P165): blocks past
// one pass over the grid then land on every CTA alike rather than all on the first ones.
__device__ __forceinline__ int64_t dealt_tid(int warp, int lane) {
  return (int64_t{warp} * gridDim.x + blockIdx.x) * 32 + lane;
}
// A copy of v whose words the compiler cannot trace back to where they were read (here: the
// kernel's parameters), so that selecting among such copies stays register selects (P166).
template <class T>
__device__ __forceinline__ T opaque_copy(const T& v) {
  static_assert(sizeof(T) % 4 == 0 && std::is_trivially_copyable_v<T>);
  uint32_t w[sizeof(T) / 4];
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (auto& x : w) asm("mov.b32 %0, %0;" : "+r"(x));
  T out;
  memcpy(&out, w, sizeof(T));
  return out;
}
// The groups' tokens (group_gemm; their regions back to back, tg.groups of them): a block's group
// selected from the parameters by its first chunk (no table in global memory, no loop).
template <int kBatch = kFuseBatch, bool kRaw = false>
__device__ __forceinline__ void decode_token_share(const TokenGroups& tg, const TokenFuse& f, int64_t tid,
                                                   int64_t threads, uint32_t stage = 0) {
  decode_token_share<kBatch, kRaw>(
      [&](int64_t chunk) {
        // From registers: a source chosen by index from the parameters compiled to constant-bank
        // loads at a register offset, two dependent rounds of them before each block's loads
        // (P166); copies through opaque moves keep the selection to selects.
        TokenSource src = opaque_copy(tg.group[0]);
#pragma unroll
        for (int g = 1; g < kMaxFuseGroups; ++g) {
          const TokenSource x = opaque_copy(tg.group[g]);
          if (g < tg.groups && chunk >= x.first_chunk) src = x;
        }
        return fetch_block_of(src, chunk);
      },
      f, tid, threads, stage);
}

// ---- the pre-pass launch (`tensor-core`, `persistent`; TokenWorkspace::decode) ----
// One 64-element chunk of tokens (four scale blocks) as fetched: 32 packed bytes (block t in bytes
// 8t..8t+7) and the four scale bytes (block t's in byte t). live: a row below m.
struct TokenChunk {
  uint4 packed[2] = {};
  uint32_t scales = 0;
  bool live = false;
};
// The chunk at row r (over batches) and K chunk ch of the tokens of e (a GemmEntry or a
// TokenSource, whose K the caller has read: k), as fetched: a live one. (The index types are the
// caller's: its address arithmetic stays as it wrote it.)
template <class E, class R, class C>
__device__ __forceinline__ TokenChunk load_chunk_at(const E& e, int64_t k, R r, C ch) {
  using F = TokenFields;
  TokenChunk c;
  const uint4* p = reinterpret_cast<const uint4*>(F::a(e) + r * (k / 2) + ch * 32);
  c.packed[0] = p[0];
  c.packed[1] = p[1];
  c.scales = *reinterpret_cast<const uint32_t*>(F::sfa(e) + r * (k / 16) + ch * 4);
  c.live = true;
  return c;
}

// ---- group_gemm's 2 x 256 kernel decodes its tokens itself (`persistent`, docs/perf-notes.md P123) ----
// A data-parallel, unsplit, resident launch of at most kMaxWideFuseGroups GEMMs: every consumer
// thread of every CTA decodes a share of the tokens' live rows at entry, in two phases, each a
// count of the launch's CTAs (never reset, count_arrival): phase 0 the first early_steps K steps
// of every row (what every CTA's first unit reads first), phase 1 the rest. The token-issuing
// warp counts its CTA on each phase once the consumers have stored it, and waits for the launch's
// count of phase 0 before its first copy and of phase 1 before its (early_steps + 1)-th. So the
// consumers start their K loop once they have stored both phases, while phase 1's fence and count
// run beside the first K steps.
// The phases' tables and a chunk's place in them: wide_tokens.hpp.
struct WideTokens {
  int groups = 0;
  int early_steps = 0;  // phase 0's K steps (fewer where a GEMM has fewer)
  int chunks[2] = {};
  unsigned long long* late = nullptr;  // phase 1's count (phase 0's: TokenFuse::arrivals)
  TokenSource group[kMaxWideFuseGroups];
  Divisor m[kMaxWideFuseGroups];  // each GEMM's live rows per batch
  TokenPhase phase[2][kMaxWideFuseGroups];
};
// Chunk v of phase p as fetched, and its chunk in the workspace (`dst`). w sits in a
// __grid_constant__ parameter, so the GEMM's fields are read in place by its index.
template <int P>
__device__ __forceinline__ TokenChunk fetch_wide_chunk(const WideTokens& w, int v, int& dst) {
  const WidePlace at = wide_place<P>(w.phase, w.groups, v);
  const int g = at.g, row = at.row, ch = at.ch;  // row: live, over batches
  const TokenSource& s = w.group[g];
  const int b = w.m[g].div(row);
  dst = static_cast<int>(s.first_chunk) +
        (b * static_cast<int>(s.m_pad) + row - b * static_cast<int>(w.m[g])) * static_cast<int>(s.tok_chunks) + ch;
  return load_chunk_at(s, s.k, int64_t{row}, ch);
}
template <class E>
__device__ __forceinline__ TokenChunk fetch_chunk_of(const E& e, int64_t chunk) {
  TokenChunk c;
  const int64_t k = TokenFields::k(e);
  int64_t r, ch;
  if (token_place(e, chunk, r, ch)) c = load_chunk_at(e, k, r, ch);
  return c;
}

// A chunk's four blocks a*sa (kRaw: a*sa*2^-14, as decode_token_block) as FP16 pairs: h[t][q] is
// block t's q-th half2 (exact), so the chunk's 16-byte unit q in fragment order is h[0..3][q].
template <bool kRaw = false>
__device__ __forceinline__ void decode_chunk(const TokenChunk& ck, uint32_t (&h)[4][8]) {
  [[maybe_unused]] const __half2 unraw = __float2half2_rn(fp4::kRawScale);
#pragma unroll
  for (int t = 0; t < 4; ++t) {
    const uint4& p = ck.packed[t >> 1];
    const uint2 blk = (t & 1) ? make_uint2(p.z, p.w) : make_uint2(p.x, p.y);
    fp4::decode_block16_raw(blk, fp4::e4m3_to_half2_bcast(ck.scales >> (8 * t)), h[t]);  // a*sa*2^-14
    if constexpr (!kRaw) {
#pragma unroll
      for (int q = 0; q < 8; ++q) h[t][q] = fp4::hmul2_u32(h[t][q], unraw);
    }
  }
}

// A decoded chunk's 128 bytes into shared memory at `row`, its 16-byte unit q (h[0..3][q]) at
// unit q ^ key.
__device__ __forceinline__ void store_chunk_swizzled(uint32_t row, int key, const uint32_t (&h)[4][8]) {
#pragma unroll
  for (int q = 0; q < 8; ++q)
    asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(row + ((q ^ key) << 4)), "r"(h[0][q]), "r"(h[1][q]),
                 "r"(h[2][q]), "r"(h[3][q])
                 : "memory");
}

// The lane's chunk `ck` decoded into fragment order through the warp's 4 KiB at `stage` (its
// 16-byte unit q at unit q ^ (lane & 7) of the lane's 128 bytes: no bank conflicts either way),
// then handed out as 8 rounds of 16-byte units: round j gives the lane unit q = lane % 8 of lane
// cc = 4 j + lane / 8's chunk, store(cc, q, v). So each round's 32 units are 4 whole chunks of
// consecutive lanes: 512 bytes wherever those chunks are contiguous in the workspace. The whole
// warp calls it (two __syncwarp inside).
template <bool kRaw = false, class Store>
__device__ __forceinline__ void stage_chunks(const TokenChunk& ck, uint32_t stage, int lane, Store&& store) {
  uint32_t h[4][8];
  decode_chunk<kRaw>(ck, h);
  store_chunk_swizzled(stage + lane * 128, lane & 7, h);
  __syncwarp();
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    const int cc = 4 * j + (lane >> 3), q = lane & 7;  // unit 32j + lane of the warp's 4 KiB
    uint4 v;
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(stage + cc * 128 + ((q ^ (cc & 7)) << 4))
                 : "memory");
    store(cc, q, v);
  }
  __syncwarp();
}

// kBatch rounds of a warp's share of WideTokens phase P: round i holds chunks first + i x stride +
// lane (first: the warp's first chunk of the batch; stride: 32 x the launch's decoding warps), all
// fetched before any is decoded (one DRAM round trip), then decoded and stored in rounds through
// the warp's 4 KiB at `stage` (stage_chunks: 512 contiguous bytes per store instruction where the
// chunks are contiguous in the workspace, i.e. inside a row). Chunks past the phase's end are not
// fetched, nor stored.
template <int P, int kBatch>
struct WideShare {
  TokenChunk ck[kBatch];
  int dst[kBatch];
  __device__ __forceinline__ void fetch(const WideTokens& w, int first, int stride) {
    const int lane = static_cast<int>(threadIdx.x & 31);
#pragma unroll
    for (int i = 0; i < kBatch; ++i) {
      dst[i] = 0;
      const int v = first + i * stride + lane;
      if (v < w.chunks[P]) ck[i] = fetch_wide_chunk<P>(w, v, dst[i]);
    }
  }
  __device__ __forceinline__ void store(const WideTokens& w, int first, int stride, uint4* out, uint32_t stage,
                                        volatile int* dsts) const {
    const int lane = static_cast<int>(threadIdx.x & 31);
#pragma unroll
    for (int i = 0; i < kBatch; ++i) {
      if (first + i * stride >= w.chunks[P]) break;  // warp-uniform
      dsts[lane] = ck[i].live ? dst[i] : -1;  // the lanes' chunks, for the lanes that store them
      __syncwarp();
      stage_chunks<true>(ck[i], stage, lane, [&](int cc, int q, const uint4& v) {  // `persistent` only: raw
        const int d = dsts[cc];
        if (d >= 0) out[int64_t{d} * 8 + q] = v;
      });
    }
  }
};
// The rounds of the warp's share of phase P after its first batch (which the caller fetched
// ahead): kBatch at a time.
template <int P, int kBatch>
__device__ __forceinline__ void decode_wide_rest(const WideTokens& w, int first, int stride, uint4* out,
                                                 uint32_t stage, volatile int* dsts) {
  for (int f = first + kBatch * stride; f < w.chunks[P]; f += kBatch * stride) {  // warp-uniform
    WideShare<P, kBatch> more;
    more.fetch(w, f, stride);
    more.store(w, f, stride, out, stage, dsts);
  }
}
// A consumer thread's share of both phases (WideTokens; `warp`: its warp among the launch's
// `warps` decoding ones, numbered so that consecutive warps sit in different CTAs and phase 0's few
// rounds spread over the CTAs), arriving on the mbarrier at stored[p] (shared-memory addresses)
// once it has stored its chunks of phase p, and before that on phase 1 fencing the async proxy
// (the staging at `stage` is a stage's token tile, which a TMA copy fills next). Phase 1's loads
// are issued after phase 0's arrival: before it, the arrival (a release) waited for them too, and
// phase 0's count came ~5 us later (P123's trace). The kernel runs this before its consumers'
// setmaxnreg: after it, ptxas spilled in the 2 x 256 K loops, which have no registers to spare
// (P78, P123).
template <int kBatch>
__device__ __forceinline__ void decode_wide_share(const WideTokens& w, int warp, int warps, uint4* out, uint32_t stage,
                                               volatile int* dsts, uint32_t stored0, uint32_t stored1) {
  const int first = warp * 32, stride = warps * 32;
  WideShare<0, 1> early;
  early.fetch(w, first, stride);
  early.store(w, first, stride, out, stage, dsts);
  decode_wide_rest<0, 1>(w, first, stride, out, stage, dsts);
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(stored0) : "memory");  // release: the stores first
  WideShare<1, kBatch> late;
  late.fetch(w, first, stride);
  late.store(w, first, stride, out, stage, dsts);
  decode_wide_rest<1, kBatch>(w, first, stride, out, stage, dsts);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(stored1) : "memory");
}

// Thread i of the pre-pass's grid asks L2 for spans i, i + grid, ... of the plan, one
// `prefetch.global.L2` per 128-byte line (no registers held, nothing to wait for). The bulk form
// (`cp.async.bulk.prefetch.L2`, one per span) held the pre-pass until its bytes had landed (P48).
__device__ __forceinline__ void prefetch_spans(const PrefetchPlan& p) {
  const int64_t grid = int64_t{gridDim.x} * blockDim.x;
  int r = 0;
  int64_t run_first = 0;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < p.spans; i += grid) {
    while (i >= run_first + p.runs[r].spans) run_first += p.runs[r++].spans;
    const uintptr_t a = reinterpret_cast<uintptr_t>(p.runs[r].base + (i - run_first) * p.runs[r].stride);
    for (uintptr_t line = a & ~uintptr_t{127}; line < a + p.runs[r].bytes; line += 128)
      asm volatile("prefetch.global.L2 [%0];" ::"l"(line) : "memory");
  }
}

// Every thread of the pre-pass's resident grid (prepass_grid) decodes whole chunks: chunks tid,
// tid + threads, ... (a warp's 32 lanes hold 32 consecutive chunks), kPrepassBatch fetched before
// any is decoded. A thread holds all four blocks of its chunk, so its 128 output bytes in fragment
// order (16-byte unit q = h[q] of blocks 0..3) are built in registers, with one index computation
// per chunk; the warp passes its 4 KiB through shared memory (unit q of lane L's chunk at unit
// q ^ (L & 7) of its 128 bytes: no bank conflicts either way) so that each 16-byte store
// instruction writes 512 contiguous bytes. Chunks of padding rows (rows [m, m_pad)) are not
// stored: the workspace is zeroed when it is allocated and nothing else writes those rows, whose
// values never reach C anyway (a token row is one output column; docs/perf-notes.md P79).
// A block per thread, fused-share style, spent ~175 instructions per block, most on index and
// group arithmetic; a chunk per thread ~75 (P102). kPrepassBatch: chunks per thread fetched before
// any is decoded (2 measured slower: P102g).
inline constexpr int kPrepassBatch = 1;
// kRaw: as decode_token_block (`persistent`'s launches).
template <bool kRaw, class Fetch>
__device__ __forceinline__ void decode_chunks(Fetch&& fetch, const TokenJob& job, uint32_t stage) {
  const int lane = static_cast<int>(threadIdx.x & 31);
  const int64_t threads = int64_t{gridDim.x} * blockDim.x;
  const int64_t warp_first = int64_t{blockIdx.x} * blockDim.x + (threadIdx.x & ~31u);
  uint4* out = reinterpret_cast<uint4*>(job.out);
  for (int64_t c0 = warp_first; c0 < job.chunks; c0 += kPrepassBatch * threads) {  // warp-uniform
    TokenChunk ck[kPrepassBatch];
#pragma unroll
    for (int i = 0; i < kPrepassBatch; ++i)
      if (c0 + i * threads + lane < job.chunks) ck[i] = fetch(c0 + i * threads + lane);
#pragma unroll
    for (int i = 0; i < kPrepassBatch; ++i) {
      const int64_t first = c0 + i * threads;  // the warp's first chunk this round
      if (first >= job.chunks) break;
      const uint32_t live = __ballot_sync(0xffffffffu, ck[i].live);
      stage_chunks<kRaw>(ck[i], stage, lane, [&](int cc, int q, const uint4& v) {
        if ((live >> cc) & 1) out[(first + cc) * 8 + q] = v;
      });
    }
  }
}

// The pre-pass kernel: the L2 prefetch first (nothing waits for it), then decode_chunks. One GEMM
// (gemm, dual_gemm): its entry's fields come straight from the kernel's parameters (constant bank),
// so nothing but the data loads waits on memory (P49). Groups: a chunk's group is found by a scan
// of first chunks, in the parameters for at most kPrepassGroups groups (no table read from global
// memory before the token loads), else (kTable) in shared memory (load_group_chunks, 8 KiB that
// the other launches do without: more CTAs fit an SM) with the entry read from the table; a
// thread's chunks only grow, so its scan goes on from the last group. One warp per CTA, one chunk
// per thread at a time: the shapes that P102 measured ran fastest so (a batch of two, or 8-warp
// CTAs, left the main kernel after it 1-3 us slower; P102g). static: each including file gets its
// own copy. kRaw: the tokens raw, a*sa*2^-14 (`persistent`; decode_token_block).
inline constexpr int kDecodeThreads = 32;
template <bool kTable, bool kRaw = false>
static __global__ void __launch_bounds__(kDecodeThreads) decode_tokens_kernel(const __grid_constant__ TokenJob job) {
  __shared__ alignas(16) uint4 stage[kDecodeThreads / 32][256];  // 4 KiB per warp
  prefetch_spans(job.prefetch);
  const auto st = static_cast<uint32_t>(__cvta_generic_to_shared(stage[threadIdx.x >> 5]));
  if constexpr (kTable) {
    __shared__ int64_t starts_smem[kMaxSharedGroups];
    const int64_t* starts = load_group_chunks(job, starts_smem);
    int g = 0;
    decode_chunks<kRaw>(
        [&](int64_t c) {
          while (g + 1 < job.groups && starts[g + 1] <= c) ++g;
          return fetch_chunk_of(job.entries[g], c);
        },
        job, st);
  } else if (job.groups == 1) {
    decode_chunks<kRaw>([&](int64_t c) { return fetch_chunk_of(job.first, c); }, job, st);
  } else {
    int g = 0;
    decode_chunks<kRaw>(
        [&](int64_t c) {
          while (g + 1 < job.groups && job.src[g + 1].first_chunk <= c) ++g;
          return fetch_chunk_of(job.src[g], c);
        },
        job, st);
  }
}

// wait_count (gemm_common.cuh) for a thread that issues TMA copies next: they read through the
// async proxy.
__device__ __forceinline__ void wait_tokens(const unsigned long long* arrivals, unsigned long long target) {
  wait_count(arrivals, target);
  asm volatile("fence.proxy.async.global;" ::: "memory");
}

// ---- decoder CTAs in the main launch (`persistent` gemm and group_gemm, kStream; P104, P108) ----
// A data-parallel launch of one unit per CTA that leaves SMs idle runs decoder CTAs there instead
// of a pre-pass launch. The tokens are decoded by groups: kStreamSteps K steps of one rank's range
// (rank s of `splits`: steps [split_k_begin(s), split_k_begin(s + 1)), its group j from step
// begin + kStreamSteps j), each group in pieces of kParts x kStreamRows token rows (over batches),
// in the order the ranks need them: every rank's group 0, then every rank's group 1, ... . The
// pieces are dealt across the decoder CTAs (piece i on CTA i % ctas), so that each group's pieces
// leave through every decoder SM's stores (P214). A warp decodes one piece at a time, in parts of
// kStreamRows rows (lane 4 r + c: row r of the part, chunk c of the group: two 16-byte loads, and
// each 16-byte store instruction 512 contiguous bytes), then places and fetches its next piece,
// whose loads are in flight under this piece's GPU-scope fence, and counts this piece on
// ready[first step of the group] after that fence (P214). A fence costs ~1-2 us at the launch's start
// (P106b): with 8-row pieces the 12 decoder CTAs of group_gemm G=2 [192,320] barely kept ahead of
// its K loop, so group_gemm's pieces are 16 rows (P108); gemm's stay 8 (16 cost its decoder-CTA
// plans ~3 %, their first group later). (Rows per GEMM: a multiple of the 128-token tile.)
inline constexpr int kStreamSteps = 4, kStreamRows = 8;
static_assert(kStreamSteps * kStreamRows == 32, "a part is one chunk per lane");
// src(g): GEMM g's token source (its GemmEntry, or group_gemm's TokenSource from the parameters).
template <int kParts, class Src>
__device__ __forceinline__ void decode_token_stream(Src&& src, const TokenFuse& f, int splits, uint32_t stage) {
  constexpr int kPieceRows = kParts * kStreamRows;
  using F = TokenFields;
  const int lane = static_cast<int>(threadIdx.x & 31), warps = static_cast<int>(blockDim.x / 32);
  // Items dealt across the decoder CTAs (item i on CTA i % ctas): each group's pieces spread over
  // every decoder SM's store path (P214).
  const int ctas = static_cast<int>(gridDim.x) - f.main_ctas;
  const int warp = static_cast<int>(threadIdx.x / 32) * ctas + (static_cast<int>(blockIdx.x) - f.main_ctas);
  const int all_warps = ctas * warps;
  int per_group = 0;  // items per group index j: every GEMM's ranks' pieces
#pragma unroll
  for (int g = 0; g < kMaxStreamGroups; ++g)
    if (g < f.gemms) per_group += splits * f.pieces[g];
  const int items = per_group * max(f.rank_groups - f.local_groups, 0);
  // Item i: group j = i / per_group + local_groups; within it GEMM g's items in turn, rank s, piece
  // p; its steps [gs, ge) of GEMM g (gs >= ge: the rank has fewer groups, nothing to do).
  struct Item {
    int g, gs, ge, piece;
  };
  const auto place = [&](int i) {
    Item it{0, 0, 0, 0};
    int r = i % per_group, pieces = f.pieces[0];
#pragma unroll
    for (int g = 1; g < kMaxStreamGroups; ++g)
      if (g < f.gemms && r >= splits * pieces) {
        r -= splits * pieces;
        it.g = g;
        pieces = f.pieces[g];
      }
    const int s = r / pieces, j = i / per_group + f.local_groups;
    const int k_steps = static_cast<int>(F::k(src(it.g)) / kTokenChunk);
    it.piece = r - s * pieces;
    it.gs = split_k_begin(k_steps, s, splits) + kStreamSteps * j;
    it.ge = min(it.gs + kStreamSteps, split_k_begin(k_steps, s + 1, splits));
    return it;
  };
  struct Chunks {
    TokenChunk part[kParts];
  };
  const auto fetch = [&](const Item& it) {
    const int ch = it.gs + (lane & 3);
    Chunks c;
    const auto& e = src(it.g);
    if (ch < it.ge) {
#pragma unroll
      for (int h = 0; h < kParts; ++h)
        c.part[h] = fetch_chunk_of(e, F::first_chunk(e) +
                                          int64_t{it.piece * kPieceRows + h * kStreamRows + lane / 4} *
                                              e.tok_chunks +
                                          ch);
    }
    return c;
  };
  uint4* out = reinterpret_cast<uint4*>(f.out);
  Item it{0, 0, 0, 0};
  if (warp < items) it = place(warp);
  Chunks ck = fetch(it);
  for (int i = warp; i < items; i += all_warps) {  // warp-uniform
    const bool more = i + all_warps < items;
    // P214: the item decoded and stored before the next one is placed and fetched (its loads then
    // in flight under this item's fence).
    if (it.gs < it.ge) {
      const auto& e = src(it.g);
#pragma unroll
      for (int h = 0; h < kParts; ++h) {
        const uint32_t live = __ballot_sync(0xffffffffu, ck.part[h].live);
        const int64_t row0 =
            F::first_chunk(e) + int64_t{it.piece * kPieceRows + h * kStreamRows} * e.tok_chunks + it.gs;
        stage_chunks<true>(ck.part[h], stage, lane, [&](int cc, int q, const uint4& v) {
          if ((live >> cc) & 1) out[(row0 + int64_t{cc >> 2} * e.tok_chunks + (cc & 3)) * 8 + q] = v;
        });
      }
    }
    const Item nit = more ? place(i + all_warps) : Item{0, 0, 0, 0};
    const Chunks next = more ? fetch(nit) : Chunks{};
    if (it.gs < it.ge) {
      if (lane == 0) {  // every lane's stores are ordered before lane 0's fence by stage_chunks' __syncwarp
        __threadfence();
        atomicAdd(f.ready + param_at(f.ready_at, it.g) + it.gs, 1u);
      }
    }
    ck = next;
    it = nit;
  }
}

// A main CTA's own first groups (kStream, TokenFuse::local_groups; docs/perf-notes.md P105): the
// token tiles of its unit's first `steps` K steps [k0, k0 + steps), decoded by its kThreads
// consumer threads straight into ring stages 0 .. steps - 1, where the token copies would have put
// them: chunk (row r of the tile, step d) in fragment order (as stage_chunks: unit q of the chunk
// is h[0..3][q]) at stage d + r x 128 bytes, its unit q at q ^ r % 8 (TMA's 128-byte swizzle; the
// stages are 1024-byte aligned), rows past M zero. kThreads / kRows threads per row, thread
// kRows i + r holding row r's steps i, i + kThreads / kRows, ...; every load issued (fetch) before
// any is decoded (store). (Loads coalesced by rows instead, 8 threads per 128-byte line and half
// the L2 requests, were slower: 4 steps stored ~1.4 us later, P105.) fetch is issued at the
// CTA's entry, before its barriers are set up, so that the loads' DRAM latency passes under that
// code (P112); the caller fences the async proxy after store (wgmma reads these stages) and syncs
// the consumers.
template <int kThreads, int kRows, int kMaxSteps>
struct LocalTokens {
  static constexpr int kPerRow = kThreads / kRows, kPer = kMaxSteps / kPerRow;  // threads per row, steps per thread
  static_assert(kThreads % kRows == 0 && kMaxSteps % kPerRow == 0, "whole rows, whole steps");
  TokenChunk ck[kPer];
  bool live = false;  // the thread's row is below M (else its chunks are stored as zeros)
  template <class E>
  __device__ __forceinline__ void fetch(const E& e, const Tile& tile, int steps, int tid) {
    using F = TokenFields;  // e: a GemmEntry or a TokenSource
    const int r = tid % kRows, d0 = tid / kRows;
    const int64_t m = F::m(e), k = F::k(e), row = tile.m0 + r;
    live = row < m;
    if (!live) return;
    const int64_t src = int64_t{tile.l} * m + row;
    const uint8_t* a = F::a(e) + src * (k / 2) + int64_t{tile.k_step_begin + d0} * 32;
    const uint8_t* sf = F::sfa(e) + src * (k / 16) + int64_t{tile.k_step_begin + d0} * 4;
#pragma unroll
    for (int i = 0; i < kPer; ++i) {
      if (d0 + kPerRow * i >= steps) break;
      const uint4* p = reinterpret_cast<const uint4*>(a + 32 * kPerRow * i);
      ck[i].packed[0] = p[0];
      ck[i].packed[1] = p[1];
      ck[i].scales = *reinterpret_cast<const uint32_t*>(sf + 4 * kPerRow * i);
    }
  }
  __device__ __forceinline__ void store(int steps, uint32_t ring, uint32_t stage_bytes, int tid) const {
    const int r = tid % kRows, d0 = tid / kRows;
#pragma unroll
    for (int i = 0; i < kPer; ++i) {
      const int d = d0 + kPerRow * i;
      if (d >= steps) break;
      uint32_t h[4][8] = {};
      if (live) decode_chunk<true>(ck[i], h);  // raw: `persistent` only
      store_chunk_swizzled(ring + d * stage_bytes + r * 128, r & 7, h);  // TMA's 128-byte swizzle
    }
  }
};

// The token-issuing warp of a main CTA (all lanes): this launch's n + 1, from one count per main
// CTA on f.launches; GEMM g's group is done in this launch at (n + 1) x pieces[g] (stream_done).
__device__ __forceinline__ unsigned stream_target(const TokenFuse& f) {
  unsigned long long old = 0;
  if ((threadIdx.x & 31) == 0) old = atomicAdd(f.launches, 1ull);
  old = __shfl_sync(0xffffffffu, old, 0);
  return static_cast<unsigned>(old / static_cast<unsigned long long>(f.main_ctas) + 1);
}
__device__ __forceinline__ unsigned stream_done(const TokenFuse& f, unsigned launch, int g) {
  return launch * static_cast<unsigned>(param_at(f.pieces, g));
}
// The same warp before the token copy of step ks (of the unit's range [begin, end)): waits until
// ks's group is done and returns the first step whose group is not known to be (lane i polls the
// i-th group from ks's: one acquire load each, so one round trip covers 32 groups); then the async
// proxy is fenced for the copies.
__device__ __forceinline__ int wait_stream(const unsigned* ready, int begin, int end, int ks, unsigned target) {
  const int lane = static_cast<int>(threadIdx.x & 31);
  const int g0 = begin + (ks - begin) / kStreamSteps * kStreamSteps, g = g0 + lane * kStreamSteps;
  for (;;) {
    bool done = true;
    if (g < end) {
      unsigned v;
      asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(ready + g) : "memory");
      done = static_cast<int>(v - target) >= 0;
    }
    const unsigned open = __ballot_sync(0xffffffffu, !done);
    if ((open & 1u) == 0) {
      __syncwarp();  // the lanes' acquires before the copies the first lane issues next
      asm volatile("fence.proxy.async.global;" ::: "memory");
      return min(end, g0 + (open == 0 ? 32 : __ffs(open) - 1) * kStreamSteps);
    }
  }
}

// The prefetch runs of a launch planned as `lp` (prefetch_plan.hpp; K steps of kTokenChunk elements).
inline PrefetchPlan plan_prefetch(const LaunchPlan& lp, int64_t budget) {
  std::vector<PrefetchGemm> gemms;
  for (const GemmEntry& e : lp.entries) {
    const GemmArgs& p = e.args;
    gemms.push_back(PrefetchGemm{{p.b[0], p.b[1]}, {p.sfb_blk[0], p.sfb_blk[1]}, p.n, p.k, p.l});
  }
  return plan_prefetch(gemms, lp.ts.splits, kTokenChunk, budget);
}

// The pre-pass's grid for `chunks` chunks of `groups` GEMMs: a CTA per kPrepassBatch x
// kDecodeThreads chunks, at most as many as run at once (occupancy query: prepare, untimed).
inline int prepass_grid(int64_t chunks, int groups) {
  const int64_t wanted = (chunks + kPrepassBatch * kDecodeThreads - 1) / (kPrepassBatch * kDecodeThreads);
  const int64_t resident = groups > kPrepassGroups ? resident_ctas(decode_tokens_kernel<true>, kDecodeThreads, 0, 1)
                                                   : resident_ctas(decode_tokens_kernel<false>, kDecodeThreads, 0, 1);
  return static_cast<int>(std::max<int64_t>(1, std::min(wanted, resident)));
}

inline void decode_tokens(const TokenJob& job, int grid, cudaStream_t stream, bool raw) {
  const bool table = job.groups > kPrepassGroups;
  void (*const kernel)(TokenJob) = table ? (raw ? decode_tokens_kernel<true, true> : decode_tokens_kernel<true, false>)
                                         : (raw ? decode_tokens_kernel<false, true> : decode_tokens_kernel<false, false>);
  kernel<<<static_cast<unsigned>(grid), kDecodeThreads, 0, stream>>>(job);
  CUDA_CHECK_LAUNCH();
}

// The pre-pass's state for one planned launch (allocated and uploaded in prepare, untimed): the
// device table of the launch's GEMMs (the main loop's GroupScheduler reads it too), its first
// entry (read from the kernel's parameters when there is one GEMM), and the FP16 workspace.
// `data_parallel`: the launch is data-parallel, so the pre-pass warms L2 for it (plan_prefetch,
// within NVFP4_TOKEN_PREFETCH_MB megabytes, default kPrefetchMB, measured best of 1-8 in P48; 0
// turns it off).
inline constexpr int kPrefetchMB = 1;
struct TokenWorkspace {
  EntryTable table;
  int groups = 1;
  GemmEntry first;
  int64_t chunks = 0;
  DeviceBuffer tokens;
  PrefetchPlan prefetch;
  DeviceBuffer arrivals;  // fuse_into_main
  DeviceBuffer ready, launches;  // stream_into_main
  int stream_ctas = 0, decoder_ctas = 0, rank_groups = 0, local_groups = 0;
  int weights_ahead = 0;  // fuse_into_main: TokenFuse::weights_ahead
  int stream_pieces[kMaxStreamGroups] = {}, stream_ready_at[kMaxStreamGroups] = {};
  TokenSource sources[kPrepassGroups] = {};  // each GEMM's, where there are at most kPrepassGroups
  HeldEntries held;                          // the GEMMs, where there are at most kHeldGroups (HeldRef)
  WideTokens wide;                           // fuse_wide
  bool raw = false;  // the pre-pass stores a*sa*2^-14 (decode_tokens_kernel's kRaw: `persistent`, P172)
  int grid = 1;                              // the pre-pass launch's (prepass_grid)
  TokenWorkspace() = default;
  // prefetch_mb: the prefetch's default budget (NVFP4_TOKEN_PREFETCH_MB overrides it).
  TokenWorkspace(const LaunchPlan& lp, bool data_parallel, cudaStream_t stream, int prefetch_mb = kPrefetchMB)
      : table(lp.entries, stream),
        groups(static_cast<int>(lp.entries.size())),
        first(lp.entries.at(0)),
        chunks(lp.token_elems / kTokenChunk),
        tokens(static_cast<size_t>(lp.token_elems) * sizeof(__half)) {
    // The padding rows stay zero: the pre-pass launch skips them (P79).
    CUDA_CHECK(cudaMemsetAsync(tokens.get(), 0, tokens.bytes(), stream));
    if (groups <= kPrepassGroups)
      for (int g = 0; g < groups; ++g) sources[g] = token_source(lp.entries[g]);
    if (groups <= kHeldGroups) std::copy(lp.entries.begin(), lp.entries.end(), held.e);
    grid = prepass_grid(chunks, groups);
    const int mb = forced_int("NVFP4_TOKEN_PREFETCH_MB", 0, 1 << 16, prefetch_mb);
    if (data_parallel) prefetch = plan_prefetch(lp, int64_t{mb} << 20);
  }
  TokenJob job() const {
    TokenJob j;
    j.entries = table.get();
    j.first = first;
    j.groups = groups;
    j.chunks = chunks;
    j.out = data();
    j.prefetch = prefetch;
    std::copy(std::begin(sources), std::end(sources), j.src);
    return j;
  }
  // A grouped main launch's TokenGroups: each GEMM's source where there are at most kMaxFuseGroups
  // (else none).
  TokenGroups token_groups() const {
    TokenGroups tg;
    if (groups <= kMaxFuseGroups) {
      tg.groups = groups;
      std::copy_n(sources, groups, tg.group);
    }
    return tg;
  }
  // Whether a launch whose `decoders` threads can share the decode should do it (TokenFuse): as
  // `env` forces (fused|prepass, checked on every call so a bad value never passes), else where
  // each thread's share is one batch of loads (two batches or a batch of 8 measured slower than
  // the pre-pass launch: P71, P72). The runner still checks that its kernel can and its grid is
  // resident.
  // `streams`: `env` may also name stream (`persistent`'s knob: wants_stream; this is false then).
  bool wants_fused(const char* env, int64_t decoders, bool streams = false) const {
    const std::string forced = streams ? forced_choice(env, {"fused", "prepass", "stream"})
                                       : forced_choice(env, {"fused", "prepass"});
    return forced.empty() ? chunks * 4 <= decoders * kFuseBatch : forced == "fused";
  }
  // Whether a launch that could run `decoders` decoder CTAs beside its units (kStream; 0 where
  // its plan cannot) should: where `env` forces stream and there is one, else (unforced) where
  // there are at least kMinDecoderCtas. A plan that cannot keeps its token path whatever `env` says.
  static constexpr int kMinDecoderCtas = 8;
  static bool wants_stream(const char* env, int64_t decoders) {
    const std::string forced = forced_choice(env, {"fused", "prepass", "stream"});
    return forced.empty() ? decoders >= kMinDecoderCtas : forced == "stream" && decoders > 0;
  }
  // The main launch (of `entries`, at most kMaxStreamGroups GEMMs) runs `decoders` decoder CTAs
  // after its `main_ctas` (TokenFuse::ready): the counts of each GEMM's groups' first steps (k_steps
  // of each) and of the launches, zeroed here (prepare). Each main CTA decodes its rank's first
  // `local` groups itself (TokenFuse::local_groups).
  // piece_rows: the kernel's (kParts x kStreamRows).
  void stream_into_main(cudaStream_t stream, const std::vector<GemmEntry>& entries, int main_ctas, int decoders,
                        int splits, int local, int piece_rows) {
    if (entries.size() > static_cast<size_t>(kMaxStreamGroups))
      throw std::logic_error("decoder CTAs: more GEMMs than kMaxStreamGroups");
    int counts = 0;
    rank_groups = 0;
    for (size_t g = 0; g < entries.size(); ++g) {
      const GemmEntry& e = entries[g];
      const int k_steps = e.k_steps;
      stream_ready_at[g] = counts;
      stream_pieces[g] = static_cast<int>(e.args.l * e.m_pad) / piece_rows;
      if (e.args.l * e.m_pad % piece_rows != 0) throw std::logic_error("decoder CTAs: rows not whole pieces");
      counts += k_steps;
      for (int s = 0; s < splits; ++s)
        rank_groups = std::max(rank_groups, (split_k_steps(k_steps, s, splits) + kStreamSteps - 1) / kStreamSteps);
    }
    ready = DeviceBuffer(static_cast<size_t>(counts) * sizeof(unsigned));
    launches = DeviceBuffer(sizeof(unsigned long long));
    CUDA_CHECK(cudaMemsetAsync(ready.get(), 0, ready.bytes(), stream));
    CUDA_CHECK(cudaMemsetAsync(launches.get(), 0, launches.bytes(), stream));
    stream_ctas = main_ctas;
    decoder_ctas = decoders;
    local_groups = local;
    if (rank_groups <= local) decoder_ctas = 0;  // every CTA decodes all its steps itself: none to launch
    prefetch = PrefetchPlan{};  // no pre-pass
  }
  bool streamed() const { return ready.get() != nullptr; }
  // The main launch decodes the tokens itself (TokenFuse): its arrival count, zeroed here (prepare).
  void fuse_into_main(cudaStream_t stream) {
    arrivals = DeviceBuffer(sizeof(unsigned long long));
    CUDA_CHECK(cudaMemsetAsync(arrivals.get(), 0, arrivals.bytes(), stream));
    prefetch = PrefetchPlan{};  // no pre-pass: nothing warms L2 (the weights' copies leave at entry)
  }
  bool fused() const { return arrivals.get() != nullptr; }
  // group_gemm's 2 x 256 kernel decodes the tokens itself (WideTokens, P123): the counts of both
  // phases (arrivals[0] and [1]) zeroed here (prepare), the phases' tables built from `entries`;
  // phase 0 holds each row's first `early_steps` K steps.
  void fuse_wide(cudaStream_t stream, const std::vector<GemmEntry>& entries, int early_steps) {
    if (entries.size() > static_cast<size_t>(kMaxWideFuseGroups))
      throw std::logic_error("wide fused tokens: more GEMMs than kMaxWideFuseGroups");
    arrivals = DeviceBuffer(2 * sizeof(unsigned long long));
    CUDA_CHECK(cudaMemsetAsync(arrivals.get(), 0, arrivals.bytes(), stream));
    prefetch = PrefetchPlan{};  // no pre-pass
    wide = WideTokens{};
    wide.groups = static_cast<int>(entries.size());
    wide.early_steps = early_steps;
    wide.late = arrivals.get<unsigned long long>() + 1;
    int64_t rows[kMaxWideFuseGroups] = {};
    int per_row[kMaxWideFuseGroups] = {};
    for (int g = 0; g < wide.groups; ++g) {
      const GemmEntry& e = entries[g];
      wide.group[g] = token_source(e);
      wide.m[g] = static_cast<int>(e.args.m);
      rows[g] = e.args.l * e.args.m;
      per_row[g] = e.tok_chunks;
    }
    wide_phases(wide.groups, rows, per_row, early_steps, wide.phase, wide.chunks);
  }
  bool wide_fused() const { return wide.groups > 0; }
  // Whether group_gemm's 2 x 256 launch whose `decoders` consumer threads could decode its
  // `live_chunks` chunks (live rows only) should (fuse_wide): as `env` forces (fused; prepass and
  // stream keep the pre-pass), else where each thread's share is more than kWideFuseMin and at most
  // kWideFuseMax chunks. Measured on an H200 (docs/perf-notes.md P123): G=8 N=4096, 3.3 chunks per
  // thread, -2.4 % against the pre-pass; G=8 N=7168, 1.0, +0.7 to +1.5 % (its pre-pass is short).
  static constexpr int kWideFuseMin = 2, kWideFuseMax = 4;
  static bool wants_wide_fused(const char* env, int64_t live_chunks, int64_t decoders) {
    const std::string forced = forced_choice(env, {"fused", "prepass", "stream"});
    return forced.empty() ? live_chunks > decoders * kWideFuseMin && live_chunks <= decoders * kWideFuseMax
                          : forced == "fused";
  }
  // The main launch's TokenFuse parameter (arrivals null: the pre-pass launch decoded the tokens).
  TokenFuse fuse() const {
    TokenFuse f;
    if (fused() || streamed()) {
      f.out = reinterpret_cast<uint32_t*>(data());
      f.chunks = chunks;
      f.arrivals = arrivals.get<unsigned long long>();
      if (!streamed() && !wide_fused()) f.weights_ahead = weights_ahead;
    }
    if (streamed()) {
      f.ready = ready.get<unsigned>();
      f.launches = launches.get<unsigned long long>();
      f.main_ctas = stream_ctas;
      f.gemms = groups;
      std::copy_n(stream_pieces, kMaxStreamGroups, f.pieces);
      std::copy_n(stream_ready_at, kMaxStreamGroups, f.ready_at);
      f.rank_groups = rank_groups;
      f.local_groups = local_groups;
    }
    return f;
  }
  // For a runner's plan(): "; the tokens decoded in the main launch", "; the pre-pass prefetches
  // each unit's first P K steps into L2 (X MB)" or "".
  std::string plan_text() const {
    if (wide_fused())
      return "; the tokens decoded in the main launch, each row's first " + std::to_string(wide.early_steps) +
             " K steps counted first";
    if (fused()) return "; the tokens decoded in the main launch";
    if (streamed() && decoder_ctas == 0) return "; the tokens decoded by each CTA itself, into its ring";
    if (streamed())  // (ranks differ by at most one step, so every rank has more than the local steps)
      return "; the tokens decoded by " + std::to_string(decoder_ctas) + " more CTAs of the main launch" +
             (local_groups > 0 ? ", each CTA's first " + std::to_string(local_groups * kStreamSteps) + " K steps by itself"
                               : "");
    if (prefetch.steps == 0) return "";
    char mb[32];
    std::snprintf(mb, sizeof mb, "%.1f", static_cast<double>(prefetch.bytes) / (1 << 20));
    return "; the pre-pass prefetches each unit's first " + std::to_string(prefetch.steps) + " K step" +
           (prefetch.steps == 1 ? "" : "s") + " into L2 (" + mb + " MB)";
  }
  // The pre-pass launch; none where the main launch decodes the tokens (fuse_into_main,
  // stream_into_main).
  void decode(cudaStream_t stream) const {
    if (!fused() && !streamed()) decode_tokens(job(), grid, stream, raw);
  }
  __half* data() const { return tokens.get<__half>(); }
};

}  // namespace nvfp4::gemm
