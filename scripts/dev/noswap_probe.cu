// SPDX-License-Identifier: Apache-2.0
// P237 probe (docs/perf-notes.md): the K loop's ceiling of an unswapped plan for gemm's 128-token
// shapes, the tokens on wgmma's M side (two consumer warpgroups of 64 token rows, A decoded from
// FP4 in registers, as the kernels decode their weights) and a narrow weights tile on its N side
// (B: N weight rows decoded from FP4 into a shared-memory ring in fragment order, 128-byte
// swizzle, as the token pre-pass writes its workspace). Like calibrate's decode+wgmma ceiling, the
// operands live in shared memory only: no global-memory traffic, so the rate is the most such a
// loop can reach. One CTA per SM, 128 CTAs (gemm 128x7168's 7168 / 56 and 128x4096's 4096 / 32
// weight tiles), `chunks` K64 steps each, timed with CUDA events (median of 5 after 2 warm-ups).
// Modes per width N:
//   m0  A decoded once (only the wgmmas)        m1  A decoded every step (calibrate's loop at width N)
//   m2  m1 + B decoded every step by the two consumer warpgroups (3 buffers, a named barrier a step)
//   m3  m1 + B decoded every step by a third (producer) warpgroup (4-stage mbarrier ring)
//   m4  four consumer warpgroups (512 threads): token half wg % 2, even / odd K steps wg / 2, A decoded
//       every step, B fixed (more warps to hide the decode's latency; the halves' sums would meet once)
//   m5  m4 + B of each pair of steps decoded by all 512 threads (3 pair buffers, a named barrier a pair)
//   noswap_probe [chunks] [1: only m4, m5]
//   nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -Isrc -o noswap_probe scripts/dev/noswap_probe.cu
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "core/random_operands.cuh"
#include "probe_common.cuh"

namespace {
using namespace nvfp4;

constexpr int kTok = 128, kCtas = 128, kStages = 4, kRing = 6;

template <int N>
struct Smem {
  static constexpr int kBufBytes = N * 128;  // N rows x 64 FP16; a multiple of 1024 for N % 8 == 0
  __half ring[kRing][N * 64];                // B tiles (each 1024-aligned: the struct is, and N*128 % 1024 == 0)
  uint8_t tok[kTok * 32];                    // A source: 128 token rows x 64 K packed
  uint8_t tok_sf[kTok * 4];
  uint8_t w[N * 32];                         // B source: N weight rows x 64 K packed
  uint8_t w_sf[N * 4];
  uint64_t full[kStages], empty[kStages];
};

template <int N>
__device__ __forceinline__ Smem<N>& smem() {
  extern __shared__ uint8_t dyn[];
  const uint32_t a = sm90::smem_addr(dyn);
  return *reinterpret_cast<Smem<N>*>(dyn + ((1024 - (a & 1023)) & 1023));
}

// B block b of a step (weight row b / 4; its scale block rotates with the step) into the tile at
// `base`, fragment order (block t's h[2j] at k 16j + 2t, h[2j + 1] at 16j + 8 + 2t), 128-byte swizzle.
template <int N>
__device__ __forceinline__ void decode_b_block(const Smem<N>& sm, uint32_t base, int b, int step) {
  const int n = b >> 2, t = (b + step) & 3;
  const uint2 packed = *reinterpret_cast<const uint2*>(sm.w + n * 32 + 8 * t);
  uint32_t h[8];
  fp4::decode_block16_raw(packed, fp4::e4m3_to_half2_bcast(sm.w_sf[n * 4 + t]), h);
#pragma unroll
  for (int j = 0; j < 4; ++j) {
#pragma unroll
    for (int p = 0; p < 2; ++p) {
      const uint32_t chunk = (2 * j + p) ^ (n & 7);
      const uint32_t addr = base + n * 128 + chunk * 16 + 4 * (b & 3);
      asm volatile("st.shared.b32 [%0], %1;" ::"r"(addr), "r"(h[2 * j + p]) : "memory");
    }
  }
}

// B blocks i, i + stride, ... of one step (4 per weight row) into ring buffer s.
template <int N>
__device__ __forceinline__ void decode_b(Smem<N>& sm, int s, int i, int stride, int step) {
  for (int b = i; b < 4 * N; b += stride) decode_b_block<N>(sm, sm90::smem_addr(sm.ring[s]), b, step);
}

// Both steps of a pair (B of steps 2p and 2p + 1) into ring buffers 2s and 2s + 1: blocks i,
// i + stride, ... of 8N.
template <int N>
__device__ __forceinline__ void decode_b2(Smem<N>& sm, int s, int i, int stride, int step) {
  for (int b2 = i; b2 < 8 * N; b2 += stride) {
    const int sub = b2 >= 4 * N;
    decode_b_block<N>(sm, sm90::smem_addr(sm.ring[2 * s + sub]), b2 - sub * 4 * N, step);
  }
}

// One round of the consumers' own B decode (m2: one step's tile by 256 threads; m5: a pair's two
// by 512), made visible to the wgmmas, then the round's barrier.
template <int N, int kCount>
__device__ __forceinline__ void b_round(Smem<N>& sm, int s, int step) {
  if constexpr (kCount == 512) decode_b2<N>(sm, s, threadIdx.x, 512, step);
  else decode_b<N>(sm, s, threadIdx.x, 256, step);
  sm90::fence_proxy_async_smem();
  sm90::named_sync<kCount>(1);
}

template <int R>
__device__ __forceinline__ void zero_acc(float (&acc)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) acc[i] = 0.0f;
  sm90::fence_regs(acc);
}

constexpr int kThreadsOf(int mode) { return mode == 3 ? 384 : mode >= 4 ? 512 : 256; }

template <int N, int MODE>
__global__ void __launch_bounds__(kThreadsOf(MODE), 1) loop_kernel(int chunks, float* sink) {
  Smem<N>& sm = smem<N>();
  for (int i = threadIdx.x; i < kRing * N * 64; i += blockDim.x) (&sm.ring[0][0])[i] = random_half(i, 5u);
  for (int i = threadIdx.x; i < kTok * 32; i += blockDim.x) sm.tok[i] = random_byte(i, 6u);
  for (int i = threadIdx.x; i < kTok * 4; i += blockDim.x) sm.tok_sf[i] = random_scale(i, 7u);
  for (int i = threadIdx.x; i < N * 32; i += blockDim.x) sm.w[i] = random_byte(i, 8u);
  for (int i = threadIdx.x; i < N * 4; i += blockDim.x) sm.w_sf[i] = random_scale(i, 9u);
  probe::init_ring(sm.full, sm.empty, kStages, 128, 256);

  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (MODE == 3 && warp >= 8) {  // the producer warpgroup: B of every step
    const int pi = threadIdx.x - 256;
    for (int c = 0; c < chunks; ++c) {
      const int s = c % kStages;
      if (c >= kStages) sm90::mbar_wait(&sm.empty[s], ((c / kStages) & 1) ^ 1);
      decode_b<N>(sm, s, pi, 128, c);
      sm90::fence_proxy_async_smem();
      sm90::mbar_arrive(&sm.full[s]);
    }
    return;
  }
  // Consumer warpgroup w owns token rows 64 (w % 2) ..; with four (m4, m5) w / 2 is its step parity.
  const int row = ((warp / 4) % 2) * 64 + (warp % 4) * 16 + lane / 4;
  const int t = lane % 4;
  const uint32_t ring = sm90::smem_addr(sm.ring[0]);
  float acc[N / 2];
  zero_acc(acc);
  uint32_t ha[2][8], hb[2][8];
  if constexpr (MODE >= 4) {
    const int par = warp / 8;
    if constexpr (MODE == 5) b_round<N, 512>(sm, 0, 0);
    for (int p = 0; p < chunks / 2; p += 2) {
#pragma unroll
      for (int u = 0; u < 2; ++u) {
        const int pp = p + u, cc = 2 * pp + par;
        uint32_t(&h)[2][8] = u == 0 ? ha : hb;
        probe::decode_rows(sm.tok, sm.tok_sf, row, (t + cc) % 4, h);
        const int s = MODE == 5 ? pp % 3 : 0;
        probe::mma_rs(acc, h, ring + (2 * s + par) * Smem<N>::kBufBytes);
        sm90::wgmma_wait<1>();
        if constexpr (MODE == 5) b_round<N, 512>(sm, (pp + 1) % 3, pp + 1);
      }
    }
  } else {
    if constexpr (MODE == 0) {
      probe::decode_rows(sm.tok, sm.tok_sf, row, t, ha);
      probe::decode_rows(sm.tok, sm.tok_sf, row, (t + 1) % 4, hb);
    }
    if constexpr (MODE == 2) b_round<N, 256>(sm, 0, 0);
    for (int c = 0; c < chunks; c += 2) {
#pragma unroll
      for (int u = 0; u < 2; ++u) {
        const int cc = c + u;
        uint32_t(&h)[2][8] = u == 0 ? ha : hb;
        if constexpr (MODE >= 1) probe::decode_rows(sm.tok, sm.tok_sf, row, (t + cc) % 4, h);
        int s = 0;
        if constexpr (MODE == 2) s = cc % 3;
        if constexpr (MODE == 3) {
          s = cc % kStages;
          sm90::mbar_wait(&sm.full[s], (cc / kStages) & 1);
        }
        probe::mma_rs(acc, h, ring + s * Smem<N>::kBufBytes);
        sm90::wgmma_wait<1>();  // step cc - 1 is done
        if constexpr (MODE == 2) b_round<N, 256>(sm, (cc + 1) % 3, cc + 1);
        if constexpr (MODE == 3) {
          if (cc >= 1) sm90::mbar_arrive(&sm.empty[(cc - 1) % kStages]);
        }
      }
    }
  }
  sm90::wgmma_wait<0>();
  probe::sink_acc(acc, sink);
}

template <int N, int MODE>
int run(int chunks, float* sink) {
  auto* k = loop_kernel<N, MODE>;
  const int threads = kThreadsOf(MODE);
  const int smem = probe::one_cta_per_sm(sizeof(Smem<N>)).smem;
  PROBE_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  cudaEvent_t e0, e1;
  PROBE_CHECK(cudaEventCreate(&e0));
  PROBE_CHECK(cudaEventCreate(&e1));
  std::vector<float> ms;
  for (int r = 0; r < 7; ++r) {
    PROBE_CHECK(cudaEventRecord(e0));
    k<<<kCtas, threads, smem>>>(chunks, sink);
    PROBE_CHECK(cudaEventRecord(e1));
    PROBE_CHECK(cudaEventSynchronize(e1));
    PROBE_CHECK(cudaGetLastError());
    float x = 0;
    PROBE_CHECK(cudaEventElapsedTime(&x, e0, e1));
    if (r >= 2) ms.push_back(x);
  }
  std::sort(ms.begin(), ms.end());
  const double us_step = ms[ms.size() / 2] * 1e3 / chunks;
  const double flop = 2.0 * kTok * N * 64;
  std::printf("N=%3d m%d  %.4f us/step  %.1f TFLOP/s per SM x132 = %.0f  (threads %d, smem %d)\n", N, MODE, us_step,
              flop / (us_step * 1e-6) / 1e12, flop / (us_step * 1e-6) / 1e12 * 132, threads, smem);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int chunks = argc > 1 ? std::atoi(argv[1]) : 8192;
  float* sink = nullptr;
  PROBE_CHECK(cudaMalloc(&sink, 4));
  int rc = 0;
  const int only = argc > 2 ? std::atoi(argv[2]) : -1;  // 1: only the four-warpgroup modes
  if (only != 1) {
    rc |= run<128, 0>(chunks, sink);
    rc |= run<128, 1>(chunks, sink);
    rc |= run<128, 2>(chunks, sink);
    rc |= run<128, 3>(chunks, sink);
    rc |= run<64, 0>(chunks, sink);
    rc |= run<64, 1>(chunks, sink);
    rc |= run<64, 2>(chunks, sink);
    rc |= run<64, 3>(chunks, sink);
    rc |= run<56, 0>(chunks, sink);
    rc |= run<56, 1>(chunks, sink);
    rc |= run<56, 2>(chunks, sink);
    rc |= run<56, 3>(chunks, sink);
    rc |= run<32, 0>(chunks, sink);
    rc |= run<32, 1>(chunks, sink);
    rc |= run<32, 2>(chunks, sink);
    rc |= run<32, 3>(chunks, sink);
  }
  rc |= run<128, 4>(chunks, sink);
  rc |= run<64, 4>(chunks, sink);
  rc |= run<64, 5>(chunks, sink);
  rc |= run<56, 4>(chunks, sink);
  rc |= run<56, 5>(chunks, sink);
  rc |= run<32, 4>(chunks, sink);
  rc |= run<32, 5>(chunks, sink);
  return rc;
}
