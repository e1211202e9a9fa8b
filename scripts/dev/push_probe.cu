// SPDX-License-Identifier: Apache-2.0
// P178 probe: how fast a split-K rank's half (32 KiB of FP32 partial sums) reaches its peer's shared
// memory, by the way it is sent. 120 CTAs in clusters of 2, 384 threads, 200 KiB of shared memory (the
// `persistent` kernel's form); 256 threads hold the values. Each CTA stamps %globaltimer when the
// sending starts and when its own receive barrier completes (the peer's 32 KiB landed):
//   0 st.async: 8 x 16-byte st.async per thread into the peer, counted on its mbarrier (push_reduce2);
//   1 one bulk copy: the values to this CTA's shared memory (STS), then one 32 KiB cp.async.bulk
//     shared::cta -> shared::cluster, counted on the peer's mbarrier;
//   2 eight bulk copies of 4 KiB (eight threads), after the same STS;
//   3 st.shared::cluster: 8 x 16-byte plain remote stores per thread, then a remote arrive (release).
// Prints per way the median and max over CTAs of the time to receive, over 5 launches, with 120,
// 32 and 8 CTAs sending at once.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

constexpr int kThreads = 256, kBytes = 32768, kSmem = 200 * 1024;

__device__ __forceinline__ uint64_t gtime() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ uint32_t smem_u32(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ uint32_t cluster_map(uint32_t a, uint32_t rank) {
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
  return r;
}
__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.aligned; barrier.cluster.wait.aligned;" ::: "memory");
}
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t phase) {
  asm volatile(
      "{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1; @!p bra W; }" ::"r"(bar), "r"(phase)
      : "memory");
}

template <int kHow>
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(384, 1) k_push(unsigned long long* out) {
  extern __shared__ __align__(1024) uint8_t s[];
  __shared__ __align__(8) uint64_t bar;
  uint8_t* send = s;             // this CTA's values staged (ways 1, 2)
  uint8_t* recv = s + 65536;     // where the peer's land
  const int tid = threadIdx.x;
  const uint32_t peer = cluster_rank() ^ 1u;
  if (tid == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_u32(&bar)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  cluster_sync();
  float4 v[8];
#pragma unroll
  for (int q = 0; q < 8; ++q) v[q] = make_float4(tid, q, blockIdx.x, 1.0f);
  const uint64_t t0 = gtime();
  if (tid == 0 && kHow != 3)  // (way 3: the peer's one remote arrive completes the barrier)
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(&bar)), "n"(kBytes) : "memory");
  const uint32_t peer_bar = cluster_map(smem_u32(&bar), peer), peer_recv = cluster_map(smem_u32(recv), peer);
  if (tid < kThreads) {
    if constexpr (kHow == 0) {
#pragma unroll
      for (int q = 0; q < 8; ++q)
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], {%1, %2, %3, %4}, [%5];" ::"r"(
                         peer_recv + (q * kThreads + tid) * 16),
                     "f"(v[q].x), "f"(v[q].y), "f"(v[q].z), "f"(v[q].w), "r"(peer_bar)
                     : "memory");
    } else if constexpr (kHow == 1 || kHow == 2) {
#pragma unroll
      for (int q = 0; q < 8; ++q) reinterpret_cast<float4*>(send)[q * kThreads + tid] = v[q];
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      asm volatile("bar.sync 1, %0;" ::"n"(kThreads) : "memory");
      constexpr int kCopies = kHow == 1 ? 1 : 8, kPiece = kBytes / kCopies;
      if (tid < kCopies)
        asm volatile(
            "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                peer_recv + tid * kPiece),
            "r"(smem_u32(send + tid * kPiece)), "n"(kPiece), "r"(peer_bar)
            : "memory");
    } else {
#pragma unroll
      for (int q = 0; q < 8; ++q)
        asm volatile("st.shared::cluster.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(peer_recv + (q * kThreads + tid) * 16),
                     "f"(v[q].x), "f"(v[q].y), "f"(v[q].z), "f"(v[q].w)
                     : "memory");
      asm volatile("bar.sync 1, %0;" ::"n"(kThreads) : "memory");
      if (tid == 0) asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(peer_bar) : "memory");
    }
  }
  mbar_wait(smem_u32(&bar), 0);
  const uint64_t t1 = gtime();
  if (tid == 0) out[blockIdx.x] = t1 - t0;
  cluster_sync();  // the peer's copies out of this CTA's memory are done
}

int main() {
  unsigned long long* out;
  cudaMalloc(&out, 120 * sizeof(unsigned long long));
  void (*ks[4])(unsigned long long*) = {k_push<0>, k_push<1>, k_push<2>, k_push<3>};
  const char* names[4] = {"st.async 8 x 16 B a thread", "one 32 KiB bulk copy (after STS)",
                          "eight 4 KiB bulk copies (after STS)", "st.shared::cluster + remote arrive"};
  for (int w = 0; w < 4; ++w) cudaFuncSetAttribute(ks[w], cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  for (int grid : {120, 32, 8})
  for (int w = 0; w < 4; ++w) {
    std::vector<double> med, mx;
    for (int rep = 0; rep < 6; ++rep) {
      cudaMemset(out, 0, 120 * sizeof(unsigned long long));
      ks[w]<<<grid, 384, kSmem>>>(out);
      cudaError_t e = cudaDeviceSynchronize();
      if (e != cudaSuccess) {
        printf("%s: %s\n", names[w], cudaGetErrorString(e));
        return 1;
      }
      unsigned long long h[120];
      cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
      std::sort(h, h + grid);
      if (rep > 0) med.push_back(h[grid / 2] / 1e3), mx.push_back(h[grid - 1] / 1e3);  // the first launch warms up
    }
    std::sort(med.begin(), med.end());
    std::sort(mx.begin(), mx.end());
    printf("%3d CTAs %-40s received after: median over CTAs %.2f us (launches %.2f-%.2f), max %.2f us\n", grid, names[w], med[2],
           med.front(), med.back(), mx[2]);
  }
  return 0;
}
