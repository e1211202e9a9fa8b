// SPDX-License-Identifier: Apache-2.0
// P194 probe (docs/perf-notes.md): the split-K exchange through L2 by itself. 128 CTAs x 256 threads,
// one per SM, in tiles of 4 consecutive CTAs; each writes W float4 per thread to its slot (__stcg,
// [q][tid] as the kernels' slots), counts on its tile's never-reset count (__threadfence + atomicAdd,
// as count_arrival) and polls it (ld.acquire.gpu, as wait_count), then reads R float4 per thread from
// P peers' slots (__ldcg, all in flight). %globaltimer stamps per CTA: entry, stores issued, counted,
// read. Build: nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -o l2x_probe scripts/dev/l2x_probe.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <vector>

namespace {

constexpr int kThreads = 256, kCtas = 128, kSlotF4 = 24 * kThreads;  // a slot: up to 24 float4 a thread (12 as 8-byte words with tags)

__device__ __forceinline__ uint64_t gtime() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// After the CTA's barrier: thread 0 writes its four stamps (entry, stores issued, counted, read: now)
// and the sum `s` goes to `sink` only if it is never-seen, so the loads stay.
__device__ __forceinline__ void finish(uint64_t* stamps, uint64_t t0, uint64_t t1, uint64_t t2, float s, float* sink) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const int b = blockIdx.x;
    stamps[b * 4 + 0] = t0;
    stamps[b * 4 + 1] = t1;
    stamps[b * 4 + 2] = t2;
    stamps[b * 4 + 3] = gtime();
  }
  if (s == -1.2345f) *sink = s;
}

// W float4 written; P peers (ranks rank ^ 1, ^ 2, ^ 3 in that order, the first P of them), R / P
// float4 read from each.
template <int W, int P, int R>
__global__ void __launch_bounds__(kThreads, 1) exchange(float4* slots, unsigned long long* counts,
                                                        unsigned long long launch, uint64_t* stamps, float* sink) {
  extern __shared__ uint8_t smem[];  // only to keep one CTA per SM
  (void)launch;
  const int b = blockIdx.x, tid = threadIdx.x, tile = b / 4, rank = b % 4;
  uint64_t t0 = 0, t1 = 0, t2 = 0;
  if (tid == 0) t0 = gtime();
  float4* mine = slots + size_t(b) * kSlotF4 + tid;
#pragma unroll
  for (int q = 0; q < W; ++q) __stcg(mine + q * kThreads, make_float4(b, q, tid, 1.0f));
  __syncthreads();
  if (tid == 0) {
    t1 = gtime();
    __threadfence();
    const unsigned long long old = atomicAdd(counts + tile, 1ull);
    const unsigned long long target = (old / 4 + 1) * 4;  // as count_arrival (the LL modes count nothing)
    unsigned long long v;
    do {
      asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(counts + tile) : "memory");
    } while (v < target);
    t2 = gtime();
  }
  __syncthreads();
  float4 v[R];
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const int peer = i / (R / P) + 1, q = i % (R / P);
    v[i] = __ldcg(slots + size_t(tile * 4 + (rank ^ peer)) * kSlotF4 + q * kThreads + tid);
  }
  float s = 0;
#pragma unroll
  for (int i = 0; i < R; ++i) s += v[i].x + v[i].y + v[i].z + v[i].w;
  finish(stamps, t0, t1, t2, s, sink);
}

// P195: W float4's worth of values per thread (4W floats) as 8-byte words {value, tag} in the slot,
// no fence or count: the reader loads its P peers' words (R / P float4's worth each) and reloads
// those whose tag is not yet `tag`. Stamps as exchange's (t2 = t1: no count).
__device__ __forceinline__ void st_u64(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ unsigned long long ld_u64(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
template <int W, int P, int R>
__global__ void __launch_bounds__(kThreads, 1) exchange_ll(float4* slots4, unsigned long long* counts,
                                                           unsigned long long launch, uint64_t* stamps, float* sink) {
  extern __shared__ uint8_t smem[];
  (void)counts;
  unsigned long long* slots = reinterpret_cast<unsigned long long*>(slots4);
  constexpr int kWords = 2 * kSlotF4;  // u64 words per slot (the same bytes as exchange's slots)
  static_assert(4 * W <= 2 * 24, "fits the slot");
  const int b = blockIdx.x, tid = threadIdx.x, tile = b / 4, rank = b % 4;
  const unsigned tag = static_cast<unsigned>(launch + 1);
  uint64_t t0 = 0, t1 = 0;
  if (tid == 0) t0 = gtime();
  unsigned long long* mine = slots + size_t(b) * kWords + tid;
#pragma unroll
  for (int q = 0; q < 4 * W; ++q) {
    const float x = float(b + q + tid);
    st_u64(mine + q * kThreads, (static_cast<unsigned long long>(tag) << 32) | __float_as_uint(x));
  }
  if (tid == 0) t1 = gtime();
  constexpr int kPer = 4 * R / P;  // words from each peer
  float s = 0;
#pragma unroll
  for (int p = 0; p < P; ++p) {
    const unsigned long long* src = slots + size_t(tile * 4 + (rank ^ (p + 1))) * kWords + tid;
    unsigned long long v[kPer];
#pragma unroll
    for (int i = 0; i < kPer; ++i) v[i] = ld_u64(src + i * kThreads);
    bool all;
    do {
      all = true;
#pragma unroll
      for (int i = 0; i < kPer; ++i)
        if (static_cast<unsigned>(v[i] >> 32) != tag) {
          v[i] = ld_u64(src + i * kThreads);
          all = false;
        }
    } while (!all);
#pragma unroll
    for (int i = 0; i < kPer; ++i) s += __uint_as_float(static_cast<unsigned>(v[i]));
  }
  finish(stamps, t0, t1, t1, s, sink);
}

template <int W, int P, int R, bool kLL = false>
void run(const char* name, float4* slots, unsigned long long* counts, unsigned long long& launch, uint64_t* stamps,
         float* sink, int smem) {
  auto* k = kLL ? exchange_ll<W, P, R> : exchange<W, P, R>;
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  std::vector<double> wr, cnt, rd, end;
  for (int rep = 0; rep < 12; ++rep) {
    k<<<kCtas, kThreads, smem>>>(slots, counts, launch++, stamps, sink);
    cudaDeviceSynchronize();
    std::vector<uint64_t> h(kCtas * 4);
    cudaMemcpy(h.data(), stamps, h.size() * 8, cudaMemcpyDeviceToHost);
    if (rep < 2) continue;
    uint64_t first = ~0ull;
    for (int b = 0; b < kCtas; ++b) first = std::min(first, h[b * 4]);
    std::vector<double> w, c, r;
    double e = 0;
    for (int b = 0; b < kCtas; ++b) {
      w.push_back((h[b * 4 + 1] - h[b * 4]) * 1e-3);
      c.push_back((h[b * 4 + 2] - h[b * 4 + 1]) * 1e-3);
      r.push_back((h[b * 4 + 3] - h[b * 4 + 2]) * 1e-3);
      e = std::max(e, (h[b * 4 + 3] - first) * 1e-3);
    }
    auto med = [](std::vector<double> x) { std::sort(x.begin(), x.end()); return x[x.size() / 2]; };
    wr.push_back(med(w));
    cnt.push_back(med(c));
    rd.push_back(med(r));
    end.push_back(e);
  }
  auto med = [](std::vector<double> x) { std::sort(x.begin(), x.end()); return x[x.size() / 2]; };
  std::printf("%-34s W %2d (%2d KiB) R %2d from %d peers: stores %.3f  fence+count+poll %.3f  reads %.3f  "
              "entry->last read (max) %.3f us  [%s]\n",
              name, W, W * 4, R, P, med(wr), med(cnt), med(rd), med(end), cudaGetErrorString(cudaGetLastError()));
}

}  // namespace

int main() {
  std::setvbuf(stdout, nullptr, _IONBF, 0);  // every line out as soon as it is measured
  float4* slots;
  unsigned long long* counts;
  uint64_t* stamps;
  float* sink;
  cudaMalloc(&slots, size_t(kCtas) * kSlotF4 * sizeof(float4));
  cudaMalloc(&counts, 64 * 8);
  cudaMemset(counts, 0, 64 * 8);
  cudaMalloc(&stamps, kCtas * 4 * 8);
  cudaMalloc(&sink, 4);
  unsigned long long launch = 0;
  const int smem = 150 * 1024;
  for (int pass = 0; pass < 2; ++pass) {
    run<4, 1, 4>("quarter swap (pair_quarters)", slots, counts, launch, stamps, sink, smem);
    run<12, 3, 12>("three quarters (global_split)", slots, counts, launch, stamps, sink, smem);
    run<8, 2, 8>("two quarters (scatter + DSMEM)", slots, counts, launch, stamps, sink, smem);
    run<12, 1, 4>("12 written, quarter read", slots, counts, launch, stamps, sink, smem);
    run<4, 3, 12>("quarter written, 12 read", slots, counts, launch, stamps, sink, smem);
    run<4, 1, 4, true>("LL quarter swap (P195)", slots, counts, launch, stamps, sink, smem);
    run<8, 2, 8, true>("LL two quarters (P195)", slots, counts, launch, stamps, sink, smem);
    run<12, 3, 12, true>("LL three quarters (P195)", slots, counts, launch, stamps, sink, smem);
  }
  return 0;
}
