// SPDX-License-Identifier: Apache-2.0
// gemm_simt.cuh: the `vectorized` mainloop of the GEMM family (CUDA cores, FP32 FFMA), instantiated
// by kernels/gemm/vectorized.cu (NB = 1) and kernels/dual_gemm/vectorized.cu (NB = 2).
//
// CTA tile = 128 weight slots (gemm: 128 B rows; dual: 64 rows of B1, then the same 64 rows of B2)
// x 128 tokens, K step 32, 256 threads, one launch per call.
//   - Load: each thread owns one of the 256 rows of a K step (threads 0..127 the weight slots,
//     128..255 the tokens): one 16-byte load of packed e2m1 and one 2-byte load of its two
//     row-major scales, issued one K step ahead into registers (register double buffering).
//   - Decode: the shift trick (fp4_decode.cuh) to exact FP32 value*scale, stored transposed as
//     [k][row] FP32 in one of two shared-memory buffers (conflict-free: a warp writes 32
//     consecutive rows). Both operands use the same k order (decode order), so no reordering.
//   - Compute: thread (ty, tx) of a 16 x 16 grid owns 8 weight slots {4ty..4ty+3, 64+4ty..} and 8
//     tokens {4tx.., 64+4tx..}: per k, four LDS.128 and 64 FFMA into 64 FP32 accumulators.
//   - Split-K (cluster reduction) and epilogues from gemm_common.cuh; dual_gemm's x1 and x2 of
//     one output are the thread's slot i and slot i + 4.
#pragma once

#include <cuda_fp16.h>

#include <memory>
#include <string>
#include <type_traits>

#include "core/case_data.hpp"
#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/device_info.hpp"
#include "core/variant.hpp"
#include "core/fp4_decode.cuh"
#include "gemm_launch.cuh"

namespace nvfp4::gemm::simt {

inline constexpr int kThreads = 256;
inline constexpr int kSlots = 128;
inline constexpr int kTokens = 128;
inline constexpr int kBK = 32;
inline constexpr int kBufFloats = kBK * (kSlots + kTokens);  // one buffer: [k][128 slots] then [k][128 tokens]
inline constexpr int kSmemBytes = 2 * kBufFloats * 4;        // 64 KB
inline constexpr int kRegs = 64;

struct Staged {
  uint4 packed;
  uint32_t sf;  // two scale bytes
};

template <int NB, class Sched>
__global__ void __launch_bounds__(kThreads, 2) simt_gemm_kernel(Sched sched) {
  extern __shared__ __align__(16) float fsmem[];
  using Slots = SlotMap<NB, 64>;
  const int tid = threadIdx.x, ty = tid >> 4, tx = tid & 15;

  // The row this thread loads and decodes: a weight slot (tid < 128) or a token.
  const bool is_w = tid < kSlots;
  const int r = tid & 127;
  const uint8_t* src;
  const uint8_t* src_sf;
  int steps, k0;
  {
    const Tile tile = sched.at(static_cast<int>(blockIdx.x));
    const GemmArgs& p = sched.entry(tile.group).args;
    steps = tile.k_step_end - tile.k_step_begin;
    k0 = tile.k_step_begin;
    if (is_w) {
      const int64_t row = min(int64_t{tile.n0 + Slots::row(r)}, p.n - 1);
      src = Slots::pick(r, p.b[0], p.b[1]) + (tile.l * p.n + row) * (p.k / 2);
      src_sf = Slots::pick(r, p.sfb[0], p.sfb[1]) + (tile.l * p.n + row) * (p.k / 16);
    } else {
      const int64_t row = min(int64_t{tile.m0 + r}, p.m - 1);
      src = p.a + (tile.l * p.m + row) * (p.k / 2);
      src_sf = p.sfa + (tile.l * p.m + row) * (p.k / 16);
    }
  }
  auto load = [&](int ks) {
    Staged s;
    s.packed = __ldg(reinterpret_cast<const uint4*>(src + int64_t{ks} * (kBK / 2)));
    s.sf = __ldg(reinterpret_cast<const unsigned short*>(src_sf + int64_t{ks} * (kBK / 16)));
    return s;
  };
  auto store = [&](const Staged& s, int buf) {
    float* dst = fsmem + buf * kBufFloats + (is_w ? 0 : kBK * kSlots) + r;
    const uint32_t words[4] = {s.packed.x, s.packed.y, s.packed.z, s.packed.w};
    const float2 scale = __half22float2(fp4::e4m3x2_to_half2(s.sf));
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      float v[8];
      fp4::decode8_f32(words[w], w < 2 ? scale.x : scale.y, v);
#pragma unroll
      for (int i = 0; i < 8; ++i) dst[(w * 8 + i) * kSlots] = v[i];
    }
  };

  float acc[kRegs];  // acc[8 * j + i]: token j, weight slot i of this thread (a token's 8 = one split-K unit)
#pragma unroll
  for (int i = 0; i < kRegs; ++i) acc[i] = 0.0f;

  Staged next = load(k0);
  store(next, 0);
  __syncthreads();
  for (int it = 0; it < steps; ++it) {
    if (it + 1 < steps) next = load(k0 + it + 1);
    const float* ws = fsmem + (it & 1) * kBufFloats;
    const float* ts = ws + kBK * kSlots;
#pragma unroll 8
    for (int kk = 0; kk < kBK; ++kk) {
      const float4 w0 = *reinterpret_cast<const float4*>(ws + kk * kSlots + 4 * ty);
      const float4 w1 = *reinterpret_cast<const float4*>(ws + kk * kSlots + 64 + 4 * ty);
      const float4 t0 = *reinterpret_cast<const float4*>(ts + kk * kTokens + 4 * tx);
      const float4 t1 = *reinterpret_cast<const float4*>(ts + kk * kTokens + 64 + 4 * tx);
      const float wv[8] = {w0.x, w0.y, w0.z, w0.w, w1.x, w1.y, w1.z, w1.w};
      const float tv[8] = {t0.x, t0.y, t0.z, t0.w, t1.x, t1.y, t1.z, t1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[8 * j + i] = fmaf(wv[i], tv[j], acc[8 * j + i]);
    }
    if (it + 1 < steps) store(next, (it + 1) & 1);
    __syncthreads();
  }

  // (the loop's last barrier: the shared tiles are free for the split-K exchange)
  // The tile again rather than kept live through the main loop, and inside the store: at 128
  // registers, the tile kept live through the split-K exchange spilled (group_gemm).
  splitk_reduce<kThreads, kRegs, 8>(acc, fsmem, sched.ts.splits, static_cast<int>(threadIdx.x), [&](const float(&v)[kRegs], int u0, int u1) {
    const Tile tile = sched.at(static_cast<int>(blockIdx.x));
    const GemmArgs& p = sched.entry(tile.group).args;
    const OutView out{p.c, p.m, p.n};
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      if (j < u0 || j >= u1) continue;
      const int64_t m = tile.m0 + (j < 4 ? 4 * tx + j : 64 + 4 * tx + j - 4);
      if constexpr (NB == 1) {
#pragma unroll
        for (int i = 0; i < 8; ++i)
          store_output<1>(out, tile.l, m, tile.n0 + (i < 4 ? 4 * ty + i : 64 + 4 * ty + i - 4), v[8 * j + i], 0.0f);
      } else {
#pragma unroll
        for (int i = 0; i < 4; ++i) store_output<2>(out, tile.l, m, tile.n0 + 4 * ty + i, v[8 * j + i], v[8 * j + i + 4]);
      }
    }
  });
}

// ---- host ----

inline std::string unsupported(const DeviceInfo& dev, const Shape& s) {
  return unsupported_family(dev, s, 70, "needs compute capability 7.0 or newer", kSmemBytes,
                            "its 64 KB of shared memory exceed the per-block limit", 256, "needs K % 256 == 0");
}

// gemm and dual_gemm (one GEMM, SingleScheduler) and group_gemm (GroupScheduler): one launch.
template <int NB, bool kGrouped>
class SimtRunner final : public Runner {
  using Sched = std::conditional_t<kGrouped, GroupScheduler, SingleScheduler>;

 public:
  SimtRunner(const CaseView& c, cudaStream_t stream) {
    const LaunchPlan lp = plan_launch(simt_gemm_kernel<NB, Sched>, kThreads, kSmemBytes, gemm_args_of(c, NB), kTokens,
                                      kSlots / NB, kBK, 8);
    if constexpr (kGrouped) m_table = EntryTable(lp.entries, stream);
    m_sched = scheduler_for<Sched>(lp, m_table);
  }
  void run(cudaStream_t stream) override {
    launch_clustered(simt_gemm_kernel<NB, Sched>, m_sched.blocks(), kThreads, kSmemBytes, m_sched.ts.splits, stream,
                     m_sched);
  }

 private:
  EntryTable m_table;
  Sched m_sched;
};

}  // namespace nvfp4::gemm::simt
