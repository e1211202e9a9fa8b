// SPDX-License-Identifier: Apache-2.0
// P176 probe: what a `persistent` CTA's last tile costs to store, by the way it goes out. Each of 120
// CTAs (384 threads, 200 KiB of shared memory, as the main kernel) writes a 128-token x 128-column
// FP16 tile (32 KiB, 256-byte rows 2 N bytes apart in C) from shared memory:
//   k_stg:  the staged copy_out's form: 256 threads, 16-byte LDS + STG, 8 per thread;
//   k_bulk: 128 threads, one 256-byte cp.async.bulk (shared -> global) per row, then the bulk group
//           waited for its shared-memory reads only (what the CTA must wait for before it exits);
//   k_bulk_full: the same, waited for to completion;
//   k_none: the tile written to shared memory and not stored (the baseline).
// Timed by Nsight Compute (gpu__time_duration), as P170's launch probe.
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

constexpr int kRows = 128, kRowBytes = 256, kTile = kRows * kRowBytes, kN = 3072;

__device__ __forceinline__ uint32_t smem_u32(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

// The tile in shared memory (so each variant starts from the same state), then `how` stores it.
template <int kHow>
__global__ void __launch_bounds__(384, 1) k_tile(uint8_t* c) {
  extern __shared__ __align__(1024) uint8_t s[];
  for (int i = threadIdx.x; i < kTile / 16; i += blockDim.x)
    reinterpret_cast<uint4*>(s)[i] = make_uint4(i, blockIdx.x, 2, 3);
  // CTA b: token rows 128 (b / 24) .. , columns 128 (b % 24) .. of a C of kN columns.
  uint8_t* base = c + (size_t(blockIdx.x / 24) * kRows * kN + size_t(blockIdx.x % 24) * 128) * 2;
  if constexpr (kHow == 1) {  // k_stg
    __syncthreads();
    if (threadIdx.x < 256) {
#pragma unroll 1
      for (int i = threadIdx.x; i < kTile / 16; i += 256) {
        const int r = i / 16, v = i % 16;
        *reinterpret_cast<uint4*>(base + size_t(r) * kN * 2 + v * 16) = reinterpret_cast<const uint4*>(s)[i];
      }
    }
  } else if constexpr (kHow == 2 || kHow == 3) {  // k_bulk, k_bulk_full
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x < kRows) {
      const int r = threadIdx.x;
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(base + size_t(r) * kN * 2),
                   "r"(smem_u32(s + r * kRowBytes)), "n"(kRowBytes)
                   : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      if constexpr (kHow == 2)
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
      else
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
  } else {  // k_none
    __syncthreads();
    if (threadIdx.x == 1000) c[0] = s[0];
  }
}
__global__ void k_flush(uint4* p, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = make_uint4(0, 0, 0, 0);
}

int main() {
  const int smem = 200 * 1024;
  cudaFuncSetAttribute(k_tile<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  cudaFuncSetAttribute(k_tile<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  cudaFuncSetAttribute(k_tile<2>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  cudaFuncSetAttribute(k_tile<3>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  uint8_t* c;
  cudaMalloc(&c, size_t(5) * kRows * kN * 2);
  uint4* fl;
  const size_t fn = (size_t(128) << 20) / 16;
  cudaMalloc(&fl, fn * 16);
  // 120 CTAs (the launch's end), then 8 (a few CTAs' stores alone: latency rather than throughput).
  for (int grid : {120, 8}) {
    for (int rep = 0; rep < 7; ++rep) {
      k_flush<<<264, 512>>>(fl, fn);
      k_tile<0><<<grid, 384, smem>>>(c);
      k_flush<<<264, 512>>>(fl, fn);
      k_tile<1><<<grid, 384, smem>>>(c);
      k_flush<<<264, 512>>>(fl, fn);
      k_tile<2><<<grid, 384, smem>>>(c);
      k_flush<<<264, 512>>>(fl, fn);
      k_tile<3><<<grid, 384, smem>>>(c);
    }
  }
  cudaError_t e = cudaDeviceSynchronize();
  printf("done: %s\n", cudaGetErrorString(e));
  return e != cudaSuccess;
}
