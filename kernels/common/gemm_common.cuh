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

// 32-bit fields: unsupported() keeps M, N, L and the tile count below 2^31.
struct Tile {
  int l, m0, n0;                 // batch, first token, first output column
  int k_step_begin, k_step_end;  // in units of the kernel's K step
  int split;                     // index of this K range among the tile's splits
  int tile;                      // linear output-tile index (fixup counters and workspace)
};

// Output tiles of kTokens x kCols over (batch, weight tile, token tile), each K range cut into
// `splits` nearly equal runs of K steps. Block order: token tile fastest (CTAs next to each other
// share a weight tile in L2), then split, then weight tile, then batch.
struct SplitKScheduler {
  int tiles_t = 1, tiles_n = 1, l = 1;
  int k_steps = 1, splits = 1;
  int tile_tokens = 128, tile_cols = 128;

  __host__ __device__ int64_t output_tiles() const { return int64_t{tiles_t} * tiles_n * l; }
  __host__ __device__ int64_t blocks() const { return output_tiles() * splits; }
  __device__ Tile at(int block) const {
    Tile t;
    const int tt = block % tiles_t;
    int rest = block / tiles_t;
    t.split = rest % splits;
    rest /= splits;
    const int tn = rest % tiles_n;
    t.l = rest / tiles_n;
    t.m0 = tt * tile_tokens;
    t.n0 = tn * tile_cols;
    t.tile = (t.l * tiles_n + tn) * tiles_t + tt;
    t.k_step_begin = k_steps * t.split / splits;
    t.k_step_end = k_steps * (t.split + 1) / splits;
    return t;
  }
  // Empty when every index fits the 32-bit fields, else why not.
  static const char* too_large(int64_t m, int64_t n, int64_t k, int64_t l) {
    if (m >= (int64_t{1} << 30) || n >= (int64_t{1} << 30) || l >= (int64_t{1} << 30) || k / 16 >= (int64_t{1} << 26))
      return "shape too large for the 32-bit tile indices";
    if (((m + 127) / 128) * ((n + 63) / 64) * l * 16 >= (int64_t{1} << 31)) return "too many output tiles for one launch";
    return "";
  }
};

// Splits for `tiles` output tiles of `k_steps` K steps when `slots` CTAs fit on the GPU at once:
// the most splits that still fit in ONE wave (tiles * splits <= slots), keeping at least
// `min_steps` K steps per split. More waves of shorter splits looked cheaper by K steps alone but
// every split adds a partial tile to write and read back (gemm 128x7168x16384 on an H100: 14
// splits in 3 waves ran slower than 4 splits in one).
inline int choose_splits(int64_t tiles, int k_steps, int64_t slots, int min_steps = 4, int max_splits = 16) {
  int best = 1;
  for (int s = 2; s <= max_splits && k_steps / s >= min_steps && tiles * s <= slots; ++s) best = s;
  return best;
}

// ---- split-K fixup ----
// Every CTA of a split tile adds its kRegs accumulators per thread into the tile's FP32 workspace
// (zero between launches; layout [reg][thread], coalesced) with fire-and-forget reductions
// (red.global.add, 4 floats at a time on sm_90+), then counts itself in. The last to arrive reads
// the sums back, zeroes the workspace for the next launch, resets the counter and alone runs the
// epilogue. Returns false for the CTAs that are done.
// The order of the FP32 additions across splits is not fixed: where a sum is not exact in FP32
// (scales far from powers of two) its last bit may differ between runs, within one FP16 ulp of
// the output. gpu-mode's gemm data sums exactly, so there it is bit-reproducible.
// (A first version stored every split's partial and let the last CTA sum all slices in order:
// deterministic, but that CTA then read splits x 64 KB alone, ~0.6 us per slice on an H100.)
template <int kThreads, int kRegs>
__device__ __forceinline__ bool splitk_fixup(float (&acc)[kRegs], const Tile& t, int splits, float* workspace,
                                             int* counters) {
  static_assert(kRegs % 4 == 0, "accumulators in float4s");
  if (splits == 1) return true;
  __shared__ int s_last;
  float4* ws = reinterpret_cast<float4*>(workspace) + int64_t{t.tile} * (kThreads * kRegs / 4);
#pragma unroll
  for (int q = 0; q < kRegs / 4; ++q) {
    float4* dst = &ws[q * kThreads + threadIdx.x];
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    atomicAdd(dst, make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]));
#else
    atomicAdd(&dst->x, acc[4 * q]);
    atomicAdd(&dst->y, acc[4 * q + 1]);
    atomicAdd(&dst->z, acc[4 * q + 2]);
    atomicAdd(&dst->w, acc[4 * q + 3]);
#endif
  }
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    const int arrived = atomicAdd(&counters[t.tile], 1);
    s_last = arrived == splits - 1;
    if (s_last) counters[t.tile] = 0;
  }
  __syncthreads();
  if (!s_last) return false;
  __threadfence();
#pragma unroll
  for (int q = 0; q < kRegs / 4; ++q) {
    float4* src = &ws[q * kThreads + threadIdx.x];
    const float4 v = __ldcg(src);
    __stcg(src, make_float4(0.0f, 0.0f, 0.0f, 0.0f));
    acc[4 * q] = v.x;
    acc[4 * q + 1] = v.y;
    acc[4 * q + 2] = v.z;
    acc[4 * q + 3] = v.w;
  }
  return true;
}

// ---- epilogues ----

// silu(x) * u in FP32 as the reference computes it (reference/dequant.cu), one rounding to FP16.
__device__ __forceinline__ __half silu_mul_fp16(float x, float u) {
  return __float2half_rn(x / (1.0f + expf(-x)) * u);
}

// Writes output (m, n) of batch l from the FP32 sums x1 (and x2 for dual_gemm), bounds-checked.
template <int NB>
__device__ __forceinline__ void store_output(const GemmArgs& p, int64_t l, int64_t m, int64_t n, float x1, float x2) {
  if (m >= p.m || n >= p.n) return;
  __half v;
  if constexpr (NB == 1) {
    v = __float2half_rn(x1);
    (void)x2;
  } else {
    v = silu_mul_fp16(x1, x2);
  }
  p.c[(l * p.m + m) * p.n + n] = v;
}

}  // namespace nvfp4::gemm

// ---- host side ----
#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"

namespace nvfp4::gemm {

// Workspace and tile counters of a split-K launch (empty when splits == 1). Allocated and zeroed
// in prepare (untimed); every launch leaves both at zero again.
struct SplitKBuffers {
  DeviceBuffer workspace, counters;
  SplitKBuffers() = default;
  SplitKBuffers(const SplitKScheduler& s, int threads, int regs, cudaStream_t stream) {
    if (s.splits == 1) return;
    workspace = DeviceBuffer(static_cast<size_t>(s.output_tiles()) * threads * regs * sizeof(float));
    counters = DeviceBuffer(static_cast<size_t>(s.output_tiles()) * sizeof(int));
    CUDA_CHECK(cudaMemsetAsync(workspace.get(), 0, workspace.bytes(), stream));
    CUDA_CHECK(cudaMemsetAsync(counters.get(), 0, counters.bytes(), stream));
  }
};

// CTAs of `kernel` that fit on the current device at once (occupancy x SMs), after raising its
// dynamic shared-memory limit to `smem`.
template <class Kernel>
int64_t resident_ctas(Kernel kernel, int threads, size_t smem) {
  int dev = 0, sms = 0, occ = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, threads, smem));
  return static_cast<int64_t>(std::max(occ, 1)) * sms;
}

}  // namespace nvfp4::gemm
