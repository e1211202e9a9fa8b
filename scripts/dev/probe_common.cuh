// SPDX-License-Identifier: Apache-2.0
// What the decode+wgmma probes of scripts/dev share (ss_probe.cu, ramp_probe.cu, kloop_probe.cu):
// calibrate's decode of a consumer thread's two rows, its four m64nNk16 RS wgmmas on one token
// tile, a ring's barrier set-up (ss, kloop and noswap probes), the clocks, the sink that keeps the
// accumulators alive, and a host check of CUDA calls (also noswap_probe.cu, start_probe.cu).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "core/fp4_decode.cuh"
#include "core/hopper.cuh"

namespace nvfp4::probe {

__device__ __forceinline__ long long clock64_now() {
  long long c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c));
  return c;
}
__device__ __forceinline__ long long globaltimer_now() {
  long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// calibrate's A registers: rows row and row + 8, 16-element block q of a chunk whose rows are 32
// packed bytes and 4 scales each (`packed`, `scales`: the chunk's first row).
__device__ __forceinline__ void decode_rows(const uint8_t* packed, const uint8_t* scales, int row, int q,
                                            uint32_t (&h)[2][8]) {
#pragma unroll
  for (int hr = 0; hr < 2; ++hr) {
    const int r = row + 8 * hr;
    const uint2 p = *reinterpret_cast<const uint2*>(packed + r * 32 + 8 * q);
    fp4::decode_block16_raw(p, fp4::e4m3_to_half2_bcast(scales[r * 4 + q]), h[hr]);
  }
}

// One wgmma m64nNk16 RS (N = 2R, the width of the accumulator array): the widths the probes use.
template <int R>
__device__ __forceinline__ void wgmma_rs(float (&acc)[R], const uint32_t (&a)[4], uint64_t desc) {
  if constexpr (R == 16) sm90::wgmma_m64n32k16_rs(acc, a, desc, 1);
  else if constexpr (R == 28) sm90::wgmma_m64n56k16_rs(acc, a, desc, 1);
  else if constexpr (R == 32) sm90::wgmma_m64n64k16_rs(acc, a, desc, 1);
  else {
    static_assert(R == 64, "an n32, n56, n64 or n128 accumulator");
    sm90::wgmma_m64n128k16_rs(acc, a, desc, 1);
  }
}

// The chunk's four k16 slices as wgmma m64nNk16 RS (N = 2R) on the token tile at `tok` (128-byte
// swizzle), one commit group.
template <int R>
__device__ __forceinline__ void mma_rs(float (&acc)[R], const uint32_t (&h)[2][8], uint32_t tok) {
  sm90::wgmma_fence();
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const uint32_t a[4] = {h[0][2 * j], h[1][2 * j], h[0][2 * j + 1], h[1][2 * j + 1]};
    wgmma_rs(acc, a, sm90::desc_kmajor_sw128(tok + 32 * j));
  }
  sm90::wgmma_commit();
}

// A ring's barriers set up by thread 0 (`full` and `empty`, `stages` each, with these arrival
// counts); then every thread's shared-memory writes fenced for the async proxy and the CTA met.
__device__ __forceinline__ void init_ring(uint64_t* full, uint64_t* empty, int stages, uint32_t full_arrivals,
                                          uint32_t empty_arrivals) {
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) {
      sm90::mbar_init(&full[s], full_arrivals);
      sm90::mbar_init(&empty[s], empty_arrivals);
    }
    sm90::mbar_init_fence();
  }
  sm90::fence_proxy_async_smem();
  __syncthreads();
}

// The accumulators summed and stored only if the sum has an impossible bit pattern, so that the
// compiler keeps every wgmma.
template <int R>
__device__ __forceinline__ void sink_acc(float (&acc)[R], float* sink) {
  sm90::fence_regs(acc);
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < R; ++i) sum += acc[i];
  if (__float_as_uint(sum) == 0xFFFFFFFFu) *sink = sum;
}

// Host: the SM count, and dynamic shared memory for `bytes` that also keeps a second CTA off each SM.
struct OnePerSm {
  int sms = 0, smem = 0;
};
inline OnePerSm one_cta_per_sm(size_t bytes) {
  int dev = 0, smem_sm = 0;
  OnePerSm o;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&o.sms, cudaDevAttrMultiProcessorCount, dev);
  cudaDeviceGetAttribute(&smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
  o.smem = std::max<int>(static_cast<int>(bytes) + 1024, smem_sm / 2 + 1024);
  return o;
}

}  // namespace nvfp4::probe

// Host: a CUDA call that fails prints where and why, and the enclosing function returns 1.
#define PROBE_CHECK(x)                                                                 \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      return 1;                                                                        \
    }                                                                                  \
  } while (0)
