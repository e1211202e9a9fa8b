// SPDX-License-Identifier: Apache-2.0
// gemv / vectorized
//
// Contract
//   c[l][m][0] = fp16( sum_k A[l][m][k]*SFA[l][m][k/16] * B[l][0][k]*SFB[l][0][k/16] ) for any
//   M >= 1, K % 64 == 0, L >= 1; any e2m1 codes, any finite e4m3 scales. Inputs as in
//   case_data.hpp (A [L][M][K/2], B [L][128][K/2] with row 0 the vector, row-major scales,
//   c [L][M][1] FP16). Blocked scales unused.
// Method
//   Two kernels; the host picks one per shape.
//   Fast path, K % 1024 == 0 (all gpu-mode benchmark shapes):
//   - A "warp-chunk" is 32 lanes x 16 B = 512 B of one row (1024 e2m1). Rows are contiguous, so the
//     warp-chunks of a run of rows form one linear stream: warp-chunk f is bytes [512 f, 512 f + 512)
//     of A, [64 f, 64 f + 64) of SFA, row f / J (J = K/1024). Grid (G, L), G = min(floor(resident
//     CTAs / L), M, ~M*J/32) (one wave; more CTAs only if a CTA's rows would exceed 1024, the cap
//     of its shared partial array). CTA b of a batch owns the whole rows [M b / G, M (b+1) / G); its
//     8 warps split that CTA's stream into equal contiguous ranges (to within one warp-chunk).
//   - U rolling register slots per lane (16 B of A + the chunk's 2 scale bytes each): a slot is
//     refilled with the chunk U ahead right after it is decoded. Default U = 4 at 4 CTAs/SM
//     (64 registers, no spills: ~3 x 16 B in flight per lane, ~64 KB per SM), chosen by a sweep of
//     seven (U, CTAs/SM) pairs (docs/perf-notes.md, gemv iteration 5). The steady-state loop has no
//     bounds checks; addresses are one base pointer + immediate offsets.
//   - Vector staged once per CTA as int8 2*b + sb/4 (FP32), laid out per 32 chunks as lo[32] uint4,
//     hi[32] uint4, sb[32] float2 so the three shared loads per slot are bank-conflict free. Each
//     thread requests its vector chunks before its slot loads.
//   - Row sums meet in shared memory without cross-lane work in the loop: when a row (or the warp's
//     range) ends, every lane deposits its FP32 partial in the row's 32-entry slot (plain store if
//     the row started inside the warp's range, else a per-lane shared atomic onto the zeroed slot).
//     After one barrier, 4 threads per row add its 32 partials in a fixed order and the CTA stores
//     its outputs. No global atomics, fences or workspace. A row has one contributor, two where a
//     warp boundary cuts it (bitwise deterministic: 0 + a + b per lane), more only when a CTA has
//     fewer than 8 rows (then those partials are added in arrival order).
//   Generic path (other K):
//   - Grid (x, L), x = min(needed, floor(resident CTAs / L)); every CTA serves one batch. Warp work
//     item = kR rows x all of K; a row is served by a group of LPR lanes (LPR = min(32, largest power
//     of two <= K/32)). Each lane reads 16-byte chunks with their two scale bytes; register double
//     buffering across steps and across item boundaries.
//   Both: decode PRMT + DP4A on exact integers (gemv_common.cuh), 22 integer instructions per
//   16-block per row; per block I2F of the exact integer dot, FFMA with sa*sb/4 (exact product)
//   into an FP32 accumulator; one FP16 rounding per output.
//   Timed region: the single launch (vector staging happens inside it).
//   Run just this variant: nvfp4bench --problem gemv --shape 7168x16384x1 --variant vectorized
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "core/case_data.hpp"
#include "core/cuda_check.hpp"
#include "core/nvfp4.hpp"
#include "core/variant.hpp"
#include "gemv_common.cuh"

namespace nvfp4 {

namespace {

using namespace gemv_detail;

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kMinBlocks = 3;  // <= 80 registers
constexpr int kR = 2;          // rows per lane group
constexpr int kU = 2;          // 16-byte chunks per row per step

struct Args {
  const uint8_t* a;
  const uint8_t* sfa;
  const uint8_t* b;
  const uint8_t* sfb;
  __half* c;
  int m, k;
  int lpr_log2;  // log2(lanes per row)
  int items;     // work items per batch
};

struct Buf {
  uint4 a[kR][kU];
  uint32_t s[kR][kU];
};

struct Ctx {
  const uint8_t* a;    // this batch
  const uint8_t* sfa;  // this batch
  __half* c;           // this batch
  const uint4* bq;     // smem int8 vector
  const float2* sb;    // smem sb/4 pairs
  int m, chunks, lpr_log2, slots_log2, items, sub, slot, stride;
  uint32_t lut;  // lut_lo_reg()
};

__device__ __forceinline__ int item_row(const Ctx& x, int item, int r) {
  return ((item * kR + r) << x.slots_log2) + x.slot;
}

__device__ __forceinline__ void load_step(const Ctx& x, Buf& buf, int item, int cb) {
  const int64_t row_bytes = static_cast<int64_t>(x.chunks) * 16, sf_bytes = x.chunks * 2;
#pragma unroll
  for (int r = 0; r < kR; ++r) {
    const int row = item_row(x, item, r);
    const bool rv = item < x.items && row < x.m;
    const uint8_t* arow = x.a + row * row_bytes;
    const uint8_t* srow = x.sfa + row * sf_bytes;
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      const int c = cb + (u << x.lpr_log2) + x.sub;
      if (rv && c < x.chunks) {
        buf.a[r][u] = ldg_stream_v4(arow + 16 * c);
        buf.s[r][u] = ldg_stream_u16(srow + 2 * c);
      } else {
        buf.a[r][u] = make_uint4(0, 0, 0, 0);
        buf.s[r][u] = 0;
      }
    }
  }
}

__device__ __forceinline__ void compute_step(const Ctx& x, const Buf& buf, int cb, float (&acc)[kR]) {
#pragma unroll
  for (int u = 0; u < kU; ++u) {
    const int c = min(cb + (u << x.lpr_log2) + x.sub, x.chunks - 1);  // out-of-range chunks hold zeros
    const uint4 b_lo = x.bq[2 * c], b_hi = x.bq[2 * c + 1];
    const float2 sb = x.sb[c];
#pragma unroll
    for (int r = 0; r < kR; ++r) {
      const float2 sa = e4m3x2_to_float2(buf.s[r][u]);
      const uint4 w = buf.a[r][u];
      const int v0 = block_dot_x4(x.lut, w.x, w.y, b_lo);
      const int v1 = block_dot_x4(x.lut, w.z, w.w, b_hi);
      acc[r] = fmaf(static_cast<float>(v0), sa.x * sb.x, acc[r]);
      acc[r] = fmaf(static_cast<float>(v1), sa.y * sb.y, acc[r]);
    }
  }
}

__device__ __forceinline__ void finish_item(const Ctx& x, int item, float (&acc)[kR]) {
#pragma unroll
  for (int r = 0; r < kR; ++r) {
    const float v = group_sum(acc[r], 1 << x.lpr_log2);
    const int row = item_row(x, item, r);
    if (x.sub == 0 && row < x.m) x.c[row] = __float2half_rn(v);
    acc[r] = 0.0f;
  }
}

// One pipeline step: prefetch the next step into `nxt`, decode `cur`. False when the warp is done.
__device__ __forceinline__ bool step(const Ctx& x, Buf& cur, Buf& nxt, int& item, int& cb, float (&acc)[kR]) {
  int nitem = item, ncb = cb + (kU << x.lpr_log2);
  if (ncb >= x.chunks) {
    ncb = 0;
    nitem += x.stride;
  }
  load_step(x, nxt, nitem, ncb);
  compute_step(x, cur, cb, acc);
  if (ncb == 0) {
    finish_item(x, item, acc);
    if (nitem >= x.items) return false;
  }
  item = nitem;
  cb = ncb;
  return true;
}

__global__ void __launch_bounds__(kThreads, kMinBlocks) gemv_vectorized_kernel(Args p) {
  extern __shared__ uint4 smem[];
  const int l = blockIdx.y, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const GemvBatch bt = gemv_batch(p, l);
  Ctx x;
  x.a = bt.a;
  x.sfa = bt.sfa;
  x.c = bt.c;
  x.bq = smem;
  x.sb = reinterpret_cast<const float2*>(reinterpret_cast<const uint8_t*>(smem) + p.k);
  x.m = p.m;
  x.chunks = p.k / 32;
  x.lpr_log2 = p.lpr_log2;
  x.slots_log2 = 5 - p.lpr_log2;
  x.items = p.items;
  x.sub = lane & ((1 << p.lpr_log2) - 1);
  x.slot = lane >> p.lpr_log2;
  x.stride = gridDim.x * kWarps;
  x.lut = lut_lo_reg();

  int item = blockIdx.x * kWarps + warp, cb = 0;
  Buf b0, b1;
  load_step(x, b0, item, cb);  // in flight while the vector is staged
  stage_vector_int8(bt.v, bt.sfv, p.k, reinterpret_cast<uint8_t*>(smem));
  __syncthreads();
  if (item >= x.items) return;

  float acc[kR];
#pragma unroll
  for (int r = 0; r < kR; ++r) acc[r] = 0.0f;
#pragma unroll 1
  for (;;) {
    if (!step(x, b0, b1, item, cb, acc)) break;
    if (!step(x, b1, b0, item, cb, acc)) break;
  }
}


// ---- fast path: K % 1024 == 0 (one warp per row chunk of 512 B, rows contiguous) ----
//
// With 32 lanes x 16 B = 512 B per warp-chunk and J = K/1024 warp-chunks per row, the warp-chunks of
// a run of rows form ONE linear stream: warp-chunk f covers bytes [512 f, 512 f + 512) of A and
// [64 f, 64 f + 64) of SFA (rows are contiguous), row f / J, vector group f % J. CTA b of a batch owns
// the whole rows [M b / G, M (b+1) / G); its 8 warps split that CTA's stream into equal contiguous
// ranges (to within one warp-chunk). Row sums meet in shared memory as per-lane partials
// [rows][32] (no shuffles in the loop), one barrier at the end, then 4 threads per row reduce and
// the CTA stores its rows' outputs: no global atomics, no fences, no workspace.

constexpr int kFGroupBytes = 1280;  // smem per vector group of 32 chunks: lo[32] uint4, hi[32] uint4, sb[32] float2
constexpr int kFRowBytes = 128;        // smem per CTA row: 32 per-lane FP32 partials
constexpr int kFMaxRowsPerCta = 1024;  // cap of the shared partial array (128 KB)

struct FastArgs {
  const uint8_t* a;
  const uint8_t* sfa;
  const uint8_t* b;
  const uint8_t* sfb;
  __half* c;
  int m, k;
  int J;  // warp-chunks per row
};

__host__ __device__ constexpr int64_t fast_vec_bytes(int64_t k) { return k / 1024 * kFGroupBytes; }

// One vector chunk (16 B of e2m1 + its 2 scale bytes) into the smem image, per group g of 32 chunks:
// lo[i] = int8 2b of k 32(32g+i) .. +15, hi[i] = the next 16, sb[i] = (sb/4 of both blocks), so
// lane i's three loads in the main loop are conflict-free 16/16/8-byte accesses.
__device__ __forceinline__ void stage_chunk(int c, uint4 w, uint32_t s2, uint8_t* smem) {
  const uint2 q0 = e2m1x8_to_int8x2(w.x), q1 = e2m1x8_to_int8x2(w.y);
  const uint2 q2 = e2m1x8_to_int8x2(w.z), q3 = e2m1x8_to_int8x2(w.w);
  uint8_t* g = smem + (c >> 5) * kFGroupBytes;
  const int i = c & 31;
  reinterpret_cast<uint4*>(g)[i] = make_uint4(q0.x, q0.y, q1.x, q1.y);
  reinterpret_cast<uint4*>(g + 512)[i] = make_uint4(q2.x, q2.y, q3.x, q3.y);
  const float2 sb = e4m3x2_to_float2(s2);
  reinterpret_cast<float2*>(g + 1024)[i] = make_float2(0.25f * sb.x, 0.25f * sb.y);
}

struct FastCtx {
  const uint8_t* q0;  // smem: group 0, lane's lo entry
  float* part;        // smem: per-lane row partials [rows][32], this lane's column
  uint32_t lut;
  int J, lane;
};

struct FastState {
  const uint8_t* q;  // smem: current group, lane's lo entry (hi at +512, sb at +1024 - 8 lane)
  float* prow;       // smem: this lane's entry of the current row's 32 partials
  float acc;
  int j;
  bool whole;  // the current row started inside this warp's range (so no other warp adds to it)
};

// Row finished (or the range ended inside it): every lane deposits its partial in the row's
// 32-entry slot, no cross-lane reduction here. A row that started inside this warp's range has no
// other contributor: plain stores. A row cut by a warp boundary: per-lane shared atomics onto the
// zeroed slot (2 contributors: 0 + a + b either order, bitwise deterministic).
__device__ __forceinline__ void fast_flush(FastState& st) {
  if (st.whole)
    *st.prow = st.acc;
  else
    atomicAdd(st.prow, st.acc);
  st.acc = 0.0f;
}

// One pass over the U slots: slot u holds stream index i + u; it is decoded, then refilled with
// stream index i + u + U. kGuard: only slots < rem are valid, refills only below rem - U.
template <int U, bool kGuard>
__device__ __forceinline__ void fast_pass(const FastCtx& x, FastState& st, uint4 (&d)[U], uint32_t (&sc)[U],
                                          const uint8_t* pa, const uint8_t* ps, int rem) {
#pragma unroll
  for (int u = 0; u < U; ++u) {
    if (kGuard && u >= rem) break;
    {
      const uint4 bl = *reinterpret_cast<const uint4*>(st.q);
      const uint4 bh = *reinterpret_cast<const uint4*>(st.q + 512);
      const float2 sb = *reinterpret_cast<const float2*>(st.q + 1024 - 8 * x.lane);
      const float2 sa = e4m3x2_to_float2(sc[u]);
      const int v0 = block_dot_x4(x.lut, d[u].x, d[u].y, bl);
      const int v1 = block_dot_x4(x.lut, d[u].z, d[u].w, bh);
      st.acc = fmaf(static_cast<float>(v0), sa.x * sb.x, st.acc);
      st.acc = fmaf(static_cast<float>(v1), sa.y * sb.y, st.acc);
    }
    if (!kGuard || u + U < rem) {
      d[u] = ldg_stream_v4(pa + (u + U) * 512);
      sc[u] = ldg_stream_u16(ps + (u + U) * 64);
    }
    st.q += kFGroupBytes;
    if (++st.j == x.J) {  // row done (warp-uniform)
      fast_flush(st);
      st.prow += 32;
      st.whole = true;
      st.j = 0;
      st.q = x.q0;
    }
  }
}

template <int U, int MinBlocks>
__global__ void __launch_bounds__(kThreads, MinBlocks) gemv_vectorized_fast_kernel(FastArgs p) {
  extern __shared__ uint4 smem[];
  uint8_t* sm = reinterpret_cast<uint8_t*>(smem);
  const int l = blockIdx.y, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int64_t half_k = p.k / 2, sf_k = p.k / 16;
  const int chunks = p.k / 32;  // vector chunks
  const int row0 = static_cast<int>(static_cast<int64_t>(p.m) * blockIdx.x / gridDim.x);
  const int rows = static_cast<int>(static_cast<int64_t>(p.m) * (blockIdx.x + 1) / gridDim.x) - row0;
  const int64_t F = static_cast<int64_t>(rows) * p.J;  // this CTA's warp-chunks
  const int f0 = static_cast<int>(F * warp / kWarps), f1 = static_cast<int>(F * (warp + 1) / kWarps);
  const int n = f1 - f0;
  const int64_t base = static_cast<int64_t>(l) * p.m + row0;  // this CTA's first output row
  const uint8_t* pa = p.a + base * half_k + static_cast<int64_t>(f0) * 512 + lane * 16;
  const uint8_t* ps = p.sfa + base * sf_k + static_cast<int64_t>(f0) * 64 + lane * 2;
  const GemvBatch bt = gemv_batch(p, l);
  const uint8_t* b_row = bt.v;
  const uint8_t* sfb_row = bt.sfv;
  float* part = reinterpret_cast<float*>(sm + fast_vec_bytes(p.k));  // [rows][32] per-lane row partials

  // Prologue. The vector's first two chunks per thread (all of it for K <= 16384) are requested
  // first, so they do not queue behind the CTA's slot loads, then the U slot loads, then the
  // vector is converted into shared memory while the slots are in flight.
  uint4 d[U];
  uint32_t sc[U];
  uint4 vw[2];
  uint32_t vs[2];
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int c = threadIdx.x + i * kThreads;
    if (c < chunks) {
      vw[i] = __ldg(reinterpret_cast<const uint4*>(b_row) + c);
      vs[i] = __ldg(reinterpret_cast<const uint16_t*>(sfb_row) + c);
    }
  }
#pragma unroll
  for (int u = 0; u < U; ++u) {
    if (u < n) {
      d[u] = ldg_stream_v4(pa + u * 512);
      sc[u] = ldg_stream_u16(ps + u * 64);
    }
  }
  for (int i = threadIdx.x; i < rows * 8; i += kThreads) reinterpret_cast<float4*>(part)[i] = make_float4(0, 0, 0, 0);
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int c = threadIdx.x + i * kThreads;
    if (c < chunks) stage_chunk(c, vw[i], vs[i], sm);
  }
  for (int c = threadIdx.x + 2 * kThreads; c < chunks; c += kThreads) {
    stage_chunk(c, __ldg(reinterpret_cast<const uint4*>(b_row) + c),
                __ldg(reinterpret_cast<const uint16_t*>(sfb_row) + c), sm);
  }
  __syncthreads();

  if (n > 0) {
    FastCtx x;
    x.q0 = sm + lane * 16;
    x.part = part + lane;
    x.lut = lut_lo_reg();
    x.J = p.J;
    x.lane = lane;
    FastState st;
    const int row = f0 / p.J;  // relative to the CTA's first row
    st.j = f0 - row * p.J;
    st.q = x.q0 + st.j * kFGroupBytes;
    st.prow = x.part + row * 32;
    st.whole = st.j == 0;
    st.acc = 0.0f;

    int i = 0;
#pragma unroll 1
    for (; i + 2 * U <= n; i += U) {  // steady state: every slot valid, every refill valid
      fast_pass<U, false>(x, st, d, sc, pa, ps, n - i);
      pa += U * 512;
      ps += U * 64;
    }
    if (i < n) {
      fast_pass<U, true>(x, st, d, sc, pa, ps, n - i);
      pa += U * 512;
      ps += U * 64;
      i += U;
      if (i < n) fast_pass<U, true>(x, st, d, sc, pa, ps, n - i);
    }
    if (st.j != 0) {  // the range ended inside a row
      st.whole = false;
      fast_flush(st);
    }
  }
  __syncthreads();
  __half* out = p.c + base;
  // Each row's 32 partials: 4 threads x 8 (two 16-byte loads), then 2 shuffles; fixed order.
  const int nq = rows * 4;
  for (int b = 0; b < nq; b += kThreads) {  // uniform trip count: every lane reaches the shuffles
    const int i = b + threadIdx.x;
    float v = 0.0f;
    if (i < nq) {
      const float4 u0 = reinterpret_cast<const float4*>(part)[2 * i];
      const float4 u1 = reinterpret_cast<const float4*>(part)[2 * i + 1];
      v = ((u0.x + u0.y) + (u0.z + u0.w)) + ((u1.x + u1.y) + (u1.z + u1.w));
    }
    v += __shfl_xor_sync(0xFFFFFFFFu, v, 1);
    v += __shfl_xor_sync(0xFFFFFFFFu, v, 2);
    if (i < nq && (i & 3) == 0) out[i >> 2] = __float2half_rn(v);
  }
}

struct FastConfig {
  void (*kern)(FastArgs);
  int min_blocks;
};

// Slots U = 4 at 4 CTAs/SM (64 registers). The sweep (H200, events, docs/perf-notes.md gemv
// iteration 5) tried 8x3 (80 regs), 6x4, 5x4, 4x5 and 3x5 (spills at 48 regs) and 4x3.
constexpr FastConfig kFastConfig{gemv_vectorized_fast_kernel<4, 4>, 4};

// ---- launch ----

int floor_log2(int v) {
  int r = 0;
  while ((2 << r) <= v) ++r;
  return r;
}

class VectorizedRunner final : public Runner {
 public:
  VectorizedRunner(const GemmOperands& g, cudaStream_t /*stream*/) {
    const Dims& d = g.dims;
    int dev = 0, sms = 0, occ = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    int optin = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    const int64_t rows_cap = std::min<int64_t>(kFMaxRowsPerCta, (optin - fast_vec_bytes(d.k)) / kFRowBytes);
    m_fast = d.k % 1024 == 0 && rows_cap >= 1;
    if (m_fast) {
      const int J = static_cast<int>(d.k / 1024);
      m_fcfg = kFastConfig;
      m_fargs = FastArgs{g.a.data, g.a.sf, g.b.data, g.b.sf, g.c, static_cast<int>(d.m), static_cast<int>(d.k), J};
      // Rows per CTA: one resident wave when the shared partial array allows it (then the
      // busiest CTA has ceil(M/G) rows), at most M CTAs, and at least ~4 warp-chunks per warp.
      // Occupancy is asked with the row array of a one-wave grid at the config's CTAs/SM.
      const int64_t guess = std::max<int64_t>(1, static_cast<int64_t>(sms) * m_fcfg.min_blocks / d.l);
      m_smem = static_cast<size_t>(fast_vec_bytes(d.k) + kFRowBytes * std::min(rows_cap, ceil_div(d.m, guess)));
      CUDA_CHECK(cudaFuncSetAttribute(m_fcfg.kern, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(m_smem)));
      CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, m_fcfg.kern, kThreads, m_smem));
      occ = std::max(occ, 1);
      const int64_t per_batch = std::max<int64_t>(1, static_cast<int64_t>(sms) * occ / d.l);
      const int64_t want = std::max<int64_t>(1, ceil_div(d.m * J, int64_t{kWarps} * 4));
      int64_t grid = std::min({per_batch, want, d.m});
      grid = std::max(grid, ceil_div(d.m, rows_cap));  // more than one wave only if the rows do not fit
      m_smem = static_cast<size_t>(fast_vec_bytes(d.k) + kFRowBytes * ceil_div(d.m, grid));
      CUDA_CHECK(cudaFuncSetAttribute(m_fcfg.kern, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(m_smem)));
      m_grid = dim3(static_cast<unsigned>(grid), static_cast<unsigned>(d.l));
      return;
    }
    m_args = Args{g.a.data, g.a.sf, g.b.data, g.b.sf, g.c, static_cast<int>(d.m), static_cast<int>(d.k), 0, 0};
    const int chunks = static_cast<int>(d.k / 32);
    m_args.lpr_log2 = std::min(5, floor_log2(chunks));
    const int rows_per_item = kR << (5 - m_args.lpr_log2);
    m_args.items = static_cast<int>(ceil_div(d.m, rows_per_item));
    m_smem = static_cast<size_t>(vector_smem_bytes(d.k));
    CUDA_CHECK(cudaFuncSetAttribute(gemv_vectorized_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(m_smem)));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, gemv_vectorized_kernel, kThreads, m_smem));
    occ = std::max(occ, 1);
    const int64_t per_batch = std::max<int64_t>(1, static_cast<int64_t>(sms) * occ / d.l);  // one wave
    m_grid = dim3(static_cast<unsigned>(std::min<int64_t>(ceil_div(m_args.items, kWarps), per_batch)),
                  static_cast<unsigned>(d.l));
  }
  void run(cudaStream_t stream) override {
    if (m_fast)
      m_fcfg.kern<<<m_grid, kThreads, m_smem, stream>>>(m_fargs);
    else
      gemv_vectorized_kernel<<<m_grid, kThreads, m_smem, stream>>>(m_args);
    CUDA_CHECK_LAUNCH();
  }

 private:
  bool m_fast = false;
  Args m_args{};
  FastArgs m_fargs{};
  FastConfig m_fcfg{};
  size_t m_smem = 0;
  dim3 m_grid;
};

std::string unsupported(const DeviceInfo& dev, const Shape& s) {
  const Dims& d = s.groups.at(0);
  return unsupported_common(dev, d, "cvt e4m3x2, dp4a", vector_smem_bytes(d.k), "the staged vector (1.25*K bytes)",
                            int64_t{1} << 31);
}

std::unique_ptr<Runner> prepare(const CaseView& c, cudaStream_t stream) {
  return std::make_unique<VectorizedRunner>(c.groups.at(0), stream);
}

}  // namespace

// ---- registry ----

extern const VariantInfo gemv_vectorized;
const VariantInfo gemv_vectorized{
    Problem::gemv,
    "vectorized",
    "whole rows per CTA, warp-chunk stream split evenly over its warps (K % 1024 == 0), 4 rolling 16-B "
    "register slots per lane at 4 CTAs/SM, "
    "PRMT+DP4A exact integer decode, vector staged as int8 in smem",
    "",
    &unsupported,
    &prepare,
};

}  // namespace nvfp4
