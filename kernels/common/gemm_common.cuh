// SPDX-License-Identifier: Apache-2.0
// gemm_common.cuh: the pieces every GEMM-family variant is built from (gemm, dual_gemm, and the
// grouped variants to come):
//   - GemmArgs: one GEMM of the case as raw pointers (A tokens, B/B2 weights, C);
//   - weight slots: how a CTA's weight rows map to B rows (gemm) or to B1/B2 rows (dual_gemm);
//   - blocked_sf_offset: the gpu-mode "permuted" scale layout (PROBLEMS.md 1.3);
//   - cp.async helpers;
//   - TileScheduler: block index -> (batch, token tile, weight tile, K range); the split-K one is
//     here, a grouped scheduler implements the same at();
//   - split-K fixup: partial accumulators meet in a workspace, the last CTA of a tile sums them in
//     partial sums (FP32 reductions into a workspace) and runs the epilogue;
//   - epilogues: FP16 store (gemm) and silu(x1)*x2 in FP32 with one rounding (dual_gemm).
//
// Naming: the MMA's M side holds WEIGHT rows (B, N of them), its N side TOKENS (A, M of them): the
// small-M shapes (M = 128..512 tokens against N = 3072..7168 weights) then fill whole MMA tiles.
// C[l][m][n] is written transposed from the accumulator tiles.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/case_data.hpp"

namespace nvfp4::gemm {

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

// Byte offset of scale (row, sf column j) in batch b of a blocked scale tensor (PROBLEMS.md 1.3).
__host__ __device__ __forceinline__ int64_t blocked_sf_offset(int64_t rows, int64_t k, int64_t b, int64_t row,
                                                              int64_t j) {
  const int64_t rest_k = (k / 16 + 3) / 4, rest_mn = (rows + 127) / 128;
  return b * rest_mn * rest_k * 512 + (row / 128) * rest_k * 512 + (j / 4) * 512 + (row % 32) * 16 +
         ((row % 128) / 32) * 4 + (j % 4);
}

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
  int split;                     // index of this K range among the tile's splits
};

// One GEMM's share of a launch.
struct GemmEntry {
  GemmArgs args;
  int tiles_t = 1, tiles_n = 1;  // token and weight tiles per batch
  int k_steps = 1;               // K / the kernel's K step
  int first_tile = 0;            // tiles of the GEMMs before this one
  int64_t tok_offset = 0;        // tensor-core: first element of this GEMM's decoded tokens
  int64_t m_pad = 0;             // tensor-core: token rows per batch in that workspace
};

struct TileShape {
  int tokens = 128, cols = 128, splits = 1;
};

__device__ __forceinline__ Tile tile_of(const GemmEntry& e, int group, int local_tile, int split, const TileShape& ts) {
  Tile t;
  t.group = group;
  t.split = split;
  const int tt = local_tile % e.tiles_t;
  const int rest = local_tile / e.tiles_t;
  t.l = rest / e.tiles_n;
  t.m0 = tt * ts.tokens;
  t.n0 = (rest % e.tiles_n) * ts.cols;
  t.k_step_begin = e.k_steps * split / ts.splits;
  t.k_step_end = e.k_steps * (split + 1) / ts.splits;
  return t;
}

struct SingleScheduler {
  GemmEntry e;  // in the kernel's parameters
  TileShape ts;
  int64_t blocks() const { return int64_t{e.tiles_t} * e.tiles_n * e.args.l * ts.splits; }
  __device__ Tile at(int block) const { return tile_of(e, 0, block / ts.splits, block % ts.splits, ts); }
  __device__ const GemmEntry& entry(int) const { return e; }
};

// G GEMMs: a device table of entries (built in prepare), a CTA finds its GEMM by a scan of the
// first tiles (G is small; the table stays in L1).
struct GroupScheduler {
  const GemmEntry* entries = nullptr;  // device, `groups` entries, ascending first_tile
  int groups = 0;
  int64_t total_tiles = 0;
  TileShape ts;
  int64_t blocks() const { return total_tiles * ts.splits; }
  __device__ Tile at(int block) const {
    const int tile = block / ts.splits;
    int g = 0;
    while (g + 1 < groups && entries[g + 1].first_tile <= tile) ++g;
    return tile_of(entries[g], g, tile - entries[g].first_tile, block % ts.splits, ts);
  }
  __device__ const GemmEntry& entry(int g) const { return entries[g]; }
};

// Empty when every index of a GEMM fits the 32-bit tile fields, else why not.
inline const char* too_large(int64_t m, int64_t n, int64_t k, int64_t l) {
  if (m >= (int64_t{1} << 30) || n >= (int64_t{1} << 30) || l >= (int64_t{1} << 30) || k / 16 >= (int64_t{1} << 26))
    return "shape too large for the 32-bit tile indices";
  if (((m + 127) / 128) * ((n + 63) / 64) * l * 16 >= (int64_t{1} << 31)) return "too many output tiles for one launch";
  return "";
}

// Splits for `tiles` output tiles of `k_steps` K steps: the most splits (at most kMaxSplits,
// the portable cluster size) that still fit in ONE wave, `slots(s)` being how many CTAs run at once
// in clusters of s, keeping at least `min_steps` K steps per split. More waves of shorter splits
// looked cheaper by K steps alone, but every split adds a partial tile to reduce (gemm
// 128x7168x16384 on an H100: 14 splits in 3 waves ran slower than 4 in one).
inline constexpr int kMaxSplits = 8;
template <class SlotsFn>
int choose_splits(int64_t tiles, int k_steps, SlotsFn slots, int min_steps = 4) {
  int best = 1;
  for (int s = 2; s <= kMaxSplits && k_steps / s >= min_steps; ++s)
    if (tiles * s <= slots(s)) best = s;
  return best;
}

// ---- split-K reduction over a cluster ----
// The `splits` CTAs of one output tile form one thread-block cluster (sm_90+). After its main loop
// each CTA stores its kRegs accumulators per thread to its own shared memory (`red`, kThreads *
// kRegs floats, as float4 [q][thread]); after a cluster barrier CTA rank c sums, for its share of
// the accumulator registers, the values of all CTAs in rank order through distributed shared
// memory (deterministic: the same order whichever CTA finishes first), and writes the outputs of
// that share; a second barrier keeps every CTA's shared memory alive until all have read it.
// Registers are shared out in units of kUnit consecutive registers (a unit holds whole outputs:
// dual_gemm's x1 and x2 of an output sit in the same unit). `epi(acc, u0, u1)` writes the outputs
// of units [u0, u1) from acc. No global workspace, no atomics, nothing to reset between launches.
// (Before: partial tiles in a global workspace, first summed by the last CTA alone, then with
// red.global.add: ~10 us of a 31 us gemm 128x7168x2048 on an H100 went to that reduction.)
template <int kThreads, int kRegs, int kUnit, class Epi>
__device__ __forceinline__ void splitk_reduce(float (&acc)[kRegs], float* red, int splits, Epi&& epi) {
  static_assert(kRegs % kUnit == 0 && kUnit % 4 == 0, "units of whole float4s");
  constexpr int kUnits = kRegs / kUnit;
  if (splits == 1) {
    epi(acc, 0, kUnits);
    return;
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  float4* mine = reinterpret_cast<float4*>(red);
#pragma unroll
  for (int q = 0; q < kRegs / 4; ++q)
    mine[q * kThreads + threadIdx.x] = make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]);
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  const int u0 = static_cast<int>(rank) * kUnits / splits, u1 = (static_cast<int>(rank) + 1) * kUnits / splits;
  const uint32_t local = static_cast<uint32_t>(__cvta_generic_to_shared(mine));
#pragma unroll
  for (int u = 0; u < kUnits; ++u) {
    if (u < u0 || u >= u1) continue;
#pragma unroll
    for (int q = u * kUnit / 4; q < (u + 1) * kUnit / 4; ++q) {
      float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      const uint32_t off = local + static_cast<uint32_t>((q * kThreads + threadIdx.x) * sizeof(float4));
      for (int c = 0; c < splits; ++c) {
        uint32_t remote;
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(off), "r"(c));
        float4 v;
        asm volatile("ld.shared::cluster.v4.f32 {%0,%1,%2,%3}, [%4];"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                     : "r"(remote));
        sum.x += v.x;
        sum.y += v.y;
        sum.z += v.z;
        sum.w += v.w;
      }
      acc[4 * q] = sum.x;
      acc[4 * q + 1] = sum.y;
      acc[4 * q + 2] = sum.z;
      acc[4 * q + 3] = sum.w;
    }
  }
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  epi(acc, u0, u1);
#else
  __trap();  // the host never splits K without clusters (splits_supported)
#endif
}

// ---- epilogues ----

// silu(x) * u in FP32 as the reference computes it (reference/dequant.cu), one rounding to FP16.
__device__ __forceinline__ __half silu_mul_fp16(float x, float u) {
  return __float2half_rn(x / (1.0f + expf(-x)) * u);
}

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
    v = silu_mul_fp16(x1, x2);
  }
  o.c[(l * o.m + m) * o.n + n] = v;
}

}  // namespace nvfp4::gemm

// ---- host side ----
#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"

namespace nvfp4::gemm {

// True where K can be split: clusters (sm_90+) carry the reduction.
inline bool splits_supported() {
  int dev = 0, major = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  return major >= 9;
}

// CTAs of `kernel` that run at once on the current device in clusters of `cluster` CTAs (the
// dynamic shared-memory limit raised to `smem` first).
template <class Kernel>
int64_t resident_ctas(Kernel kernel, int threads, size_t smem, int cluster) {
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  if (cluster == 1) {
    int dev = 0, sms = 0, occ = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, threads, smem));
    return static_cast<int64_t>(occ) * sms;
  }
  if (cluster > 8) CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = static_cast<unsigned>(cluster);
  attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
  cfg.gridDim = dim3(static_cast<unsigned>(cluster));
  cfg.blockDim = dim3(static_cast<unsigned>(threads));
  cfg.dynamicSmemBytes = smem;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  int clusters = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg));
  return static_cast<int64_t>(clusters) * cluster;
}

// Launches `kernel` with `blocks` CTAs in clusters of `cluster` along x.
template <class Kernel, class... Args>
void launch_clustered(Kernel kernel, int64_t blocks, int threads, size_t smem, int cluster, cudaStream_t stream,
                      Args... args) {
  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = static_cast<unsigned>(cluster);
  attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
  cfg.gridDim = dim3(static_cast<unsigned>(blocks));
  cfg.blockDim = dim3(static_cast<unsigned>(threads));
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, args...));
}

// The entries of a launch over `gemms` with CTA tiles of tile_tokens x tile_cols and K steps of
// k_step (token workspace offsets for the tensor-core pre-pass: rows padded to tile_tokens), and the
// one-wave split count from the cluster occupancy of `kernel` (uniform over the launch; at least
// min_steps K steps per split in the GEMM with the fewest).
struct LaunchPlan {
  std::vector<GemmEntry> entries;
  TileShape ts;
  int64_t tiles = 0;
  int64_t token_elems = 0;  // size of the token workspace
};

template <class Kernel>
LaunchPlan plan_launch(Kernel kernel, int threads, size_t smem, const std::vector<GemmArgs>& gemms, int tile_tokens,
                       int tile_cols, int k_step, int min_steps) {
  LaunchPlan lp;
  lp.ts.tokens = tile_tokens;
  lp.ts.cols = tile_cols;
  int min_k_steps = 1 << 30;
  for (const GemmArgs& p : gemms) {
    GemmEntry e;
    e.args = p;
    e.tiles_t = static_cast<int>((p.m + tile_tokens - 1) / tile_tokens);
    e.tiles_n = static_cast<int>((p.n + tile_cols - 1) / tile_cols);
    e.k_steps = static_cast<int>(p.k / k_step);
    e.first_tile = static_cast<int>(lp.tiles);
    e.m_pad = int64_t{e.tiles_t} * tile_tokens;
    e.tok_offset = lp.token_elems;
    lp.tiles += int64_t{e.tiles_t} * e.tiles_n * p.l;
    lp.token_elems += p.l * e.m_pad * p.k;
    min_k_steps = std::min(min_k_steps, e.k_steps);
    lp.entries.push_back(e);
  }
  resident_ctas(kernel, threads, smem, 1);  // raises the shared-memory limit
  if (splits_supported())
    lp.ts.splits = choose_splits(lp.tiles, min_k_steps,
                                 [&](int c) { return resident_ctas(kernel, threads, smem, c); }, min_steps);
  return lp;
}

inline std::vector<GemmArgs> gemm_args_of(const CaseView& c, int nb) {
  std::vector<GemmArgs> v;
  for (const GemmOperands& g : c.groups) v.push_back(make_args(g, nb));
  return v;
}

// The device table of a grouped launch (uploaded in prepare, untimed).
struct EntryTable {
  DeviceBuffer buf;
  EntryTable() = default;
  EntryTable(const std::vector<GemmEntry>& entries, cudaStream_t stream)
      : buf(entries.size() * sizeof(GemmEntry)) {
    CUDA_CHECK(cudaMemcpyAsync(buf.get(), entries.data(), buf.bytes(), cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));  // `entries` may go away
  }
  const GemmEntry* get() const { return buf.get<const GemmEntry>(); }
};

}  // namespace nvfp4::gemm
