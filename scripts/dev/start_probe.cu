// SPDX-License-Identifier: Apache-2.0
// P236 probe (docs/perf-notes.md): the floor of a `persistent` launch's start and end for
// gemm 128x7168x2048's 2 x 128 plan, with nothing of our kernel's code: 112 CTAs in clusters of 2
// (384 threads, 200 KiB of shared memory, as the kernel), each CTA's thread 0 issuing its first S
// stages of packed weights (TMA boxes of 32 bytes x 128 rows, as the kernel's) at entry, the 256
// consumer threads fetching and decoding L K steps of FP4 tokens (128 tokens x 64 K a step) into
// shared memory, everyone waiting for the first stage, then (E) each CTA storing its half tile of
// FP16 output (16 KiB) with 16-byte stores. No K loop, no exchange. Timed by Nsight Compute
// (gpu__time_duration, the cupti timer's measure) after a 128 MiB flush, and by %globaltimer stamps
// (entry, first stage landed, tokens decoded, done) per CTA. Variants: stage 0 by the consumers'
// cp.async instead of TMA (no descriptor to fetch), the descriptor prefetched first thing.
//   start_probe [read]   (read: nvfp4bench's clean read flush before each launch instead of a memset)
//   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Isrc -o start_probe scripts/dev/start_probe.cu
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "probe_common.cuh"

namespace {
using namespace nvfp4;

constexpr int kCtas = 112, kThreads = 384, kSmem = 200 * 1024, kRows = 7168, kK = 2048, kTokens = 128;
constexpr int kStageBytes = 32 * 128;  // one weights box: 64 K (32 bytes) x 128 rows

using nvfp4::sm90::smem_addr;
__device__ __forceinline__ uint64_t gtime() { return nvfp4::probe::globaltimer_now(); }

// Waits for phase 0 of the barrier, at most until 1 ms after `t0` (a probe must not hang the device).
__device__ __forceinline__ void wait_phase0(uint64_t* bar, uint64_t t0) {
  uint32_t done = 0;
  while (!done && gtime() - t0 < 1000000)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(smem_addr(bar))
                 : "memory");
}

struct Args {
  const uint8_t* tokens;  // FP4, kTokens x kK / 2
  uint4* out;             // FP16, kTokens x kRows
  uint64_t* stamps;       // 4 per CTA
  int stages;             // weights stages issued at entry (0..8)
  int local_steps;        // K steps of tokens decoded by the consumers (0..8)
  int store;              // 1: each CTA stores 16 KiB of output
  int cp;                 // 1: stage 0 by the consumers' cp.async (16 bytes a thread), no descriptor
  int prefetch;           // 1: prefetch.tensormap first thing
  const uint8_t* w;       // the packed weights (for cp)
  int private_tokens;     // 1: each CTA reads its own copy of the tokens (no line shared across CTAs)
  int tma_after_loads;    // 1: the weights' copies issued after the consumers' token loads
};

__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(kThreads, 1)
    k_start(const __grid_constant__ CUtensorMap wmap, Args a) {
  const uint64_t t_entry = gtime();
  extern __shared__ __align__(1024) unsigned char smem[];
  uint64_t* full = reinterpret_cast<uint64_t*>(smem);
  unsigned char* ring = smem + 1024;                 // 8 weights stages
  __half* tok = reinterpret_cast<__half*>(smem + 1024 + 8 * kStageBytes);  // local token steps (FP16)
  const int tile = blockIdx.x / 2, rank = blockIdx.x % 2;
  if (threadIdx.x == 0 && a.prefetch) sm90::tma_prefetch_desc(&wmap);
  if (a.tma_after_loads && a.local_steps > 0 && threadIdx.x < 32) sm90::named_sync<288>(3);
  if (threadIdx.x == 0) {
    for (int s = 0; s < 8; ++s) sm90::mbar_init(&full[s], 1);
    sm90::mbar_init_fence();
    for (int s = a.cp; s < a.stages; ++s) {
      sm90::mbar_arrive_expect_tx(&full[s], kStageBytes);
      const int x = (rank * (kK / 2) + s * 64) / 2, y = tile * 128;
      sm90::tma_load_2d(smem_addr(ring + s * kStageBytes), &wmap, smem_addr(&full[s]), x, y);
    }
  }
  uint64_t t_tok = t_entry, t_cp = 0;
  if (threadIdx.x >= 128 && a.cp) {  // stage 0's 128 rows x 32 bytes, two 16-byte pieces a row
    const int c = threadIdx.x - 128, row = c / 2, half = c % 2;
    const uint8_t* src = a.w + size_t(tile * 128 + row) * (kK / 2) + rank * (kK / 4) + half * 16;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_addr(ring + row * 32 + half * 16)),
                 "l"(src)
                 : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
  }
  if (threadIdx.x >= 128 && a.local_steps > 0) {
    // Each consumer thread: 16 bytes (32 e2m1) a step, 256 threads = 128 tokens x 64 K; every
    // step's load issued before the first decode.
    const int c = threadIdx.x - 128, row = c / 2, half = c % 2;
    uint4 w[8];
#pragma unroll
    for (int s = 0; s < 8; ++s)
      if (s < a.local_steps)
        w[s] = *reinterpret_cast<const uint4*>(a.tokens + (a.private_tokens ? size_t(blockIdx.x) * kTokens * (kK / 2) : 0) +
                                               size_t(row) * (kK / 2) +
                                               (rank * (kK / 2) + s * 64 + half * 32) / 2);
    if (a.tma_after_loads) asm volatile("bar.arrive 3, 288;" ::: "memory");  // the loads are in flight
#pragma unroll
    for (int s = 0; s < 8; ++s) {
      if (s >= a.local_steps) break;
      uint32_t h[16];
      fp4::e2m1x8_to_raw_half2x4(w[s].x, *reinterpret_cast<uint32_t(*)[4]>(&h[0]));
      fp4::e2m1x8_to_raw_half2x4(w[s].y, *reinterpret_cast<uint32_t(*)[4]>(&h[4]));
      fp4::e2m1x8_to_raw_half2x4(w[s].z, *reinterpret_cast<uint32_t(*)[4]>(&h[8]));
      fp4::e2m1x8_to_raw_half2x4(w[s].w, *reinterpret_cast<uint32_t(*)[4]>(&h[12]));
      uint4* dst = reinterpret_cast<uint4*>(tok + (size_t(s) * kTokens + row) * 64 + half * 32);
#pragma unroll
      for (int i = 0; i < 4; ++i) dst[i] = make_uint4(h[4 * i], h[4 * i + 1], h[4 * i + 2], h[4 * i + 3]);
    }
    sm90::named_sync<256>(1);
    t_tok = gtime();
  }
  if (threadIdx.x >= 128 && a.cp) {
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    sm90::named_sync<256>(2);
    t_cp = gtime();
  }
  __syncthreads();  // the barriers' initialisation seen by every thread
  if (a.stages > 0 && !a.cp) wait_phase0(&full[0], t_entry);  // stage 0 is TMA's
  const uint64_t t_first = a.cp ? t_cp : gtime();
  if (a.store) {  // this rank's half of the 128 x 128 FP16 tile: 64 weight rows x 128 tokens
    const uint4* src = reinterpret_cast<const uint4*>(ring);
    for (int i = threadIdx.x; i < 64 * kTokens * 2 / 16; i += kThreads) {
      const int t = i / 8, seg = i % 8;  // 8 x 16 bytes = 64 rows of one token
      a.out[(size_t(t) * kRows + tile * 128 + rank * 64) / 8 + seg] = src[i % 512];
    }
  }
  if (threadIdx.x == 0)  // no copy left in flight at the CTA's exit
    for (int s = a.cp; s < a.stages; ++s) wait_phase0(&full[s], t_entry);
  __syncthreads();
  if (threadIdx.x == 0) {
    uint64_t* st = a.stamps + 4 * blockIdx.x;
    st[0] = t_entry;
    if (!a.cp) st[1] = t_first;
    st[2] = gtime();
  }
  if (threadIdx.x == 128) {
    a.stamps[4 * blockIdx.x + 3] = t_tok;
    if (a.cp) a.stamps[4 * blockIdx.x + 1] = t_first;
  }
}

// Reads the buffer (clean lines, as nvfp4bench's `cold` flush); the sum is stored only if it is
// impossible, so that the loads stay.
__global__ void k_read_flush(const uint4* p, size_t n, unsigned* sink) {
  unsigned acc = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const uint4 v = p[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;
}
__global__ void k_flush(uint4* p, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = make_uint4(0, 0, 0, 0);
}

double med(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  // `read`: flush by reading a clean buffer (nvfp4bench's way); default: a memset (dirty lines).
  const bool read_flush = argc > 1 && std::string(argv[1]) == "read";
  uint8_t *w, *tokens;
  uint4 *out, *fl;
  uint64_t* stamps;
  const size_t fn = (size_t(128) << 20) / 16;
  PROBE_CHECK(cudaMalloc(&w, size_t(kRows) * kK / 2));
  PROBE_CHECK(cudaMalloc(&tokens, size_t(kCtas) * kTokens * kK / 2));  // a private copy per CTA for one mode
  PROBE_CHECK(cudaMalloc(&out, size_t(kTokens) * kRows * 2));
  PROBE_CHECK(cudaMalloc(&fl, fn * 16));
  PROBE_CHECK(cudaMemset(fl, 0, fn * 16));
  PROBE_CHECK(cudaMalloc(&stamps, kCtas * 4 * sizeof(uint64_t)));
  PROBE_CHECK(cudaMemset(w, 0x35, size_t(kRows) * kK / 2));
  PROBE_CHECK(cudaMemset(tokens, 0x21, size_t(kCtas) * kTokens * kK / 2));
  void* enc = nullptr;
  cudaDriverEntryPointQueryResult q{};
  PROBE_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &enc, 12000, cudaEnableDefault, &q));
  CUtensorMap wmap{};
  const cuuint64_t dims[2] = {kK / 2, kRows};
  const cuuint64_t strides[1] = {kK / 2};
  const cuuint32_t box[2] = {32, 128}, es[2] = {1, 1};
  if (reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(enc)(
          &wmap, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, w, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
          CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) !=
      CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed\n");
    return 1;
  }
  PROBE_CHECK(cudaFuncSetAttribute(k_start, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  struct Mode {
    const char* name;
    int stages, local, store, cp, prefetch, priv = 0, after = 0;
  };
  // The names are read by scripts/dev/p236_probe.sh in this order.
  const Mode modes[] = {{"m0 nothing", 0, 0, 0, 0, 0},
                        {"m1 TMA S=1", 1, 0, 0, 0, 0},
                        {"m2 TMA S=8", 8, 0, 0, 0, 0},
                        {"m2p TMA S=8, tensormap prefetched", 8, 0, 0, 0, 1},
                        {"m7 cp.async stage 0 + TMA 1..7", 8, 0, 0, 1, 0},
                        {"m3 TMA S=8 + 4 local", 8, 4, 0, 0, 0},
                        {"m4 TMA S=8 + 4 local + stores", 8, 4, 1, 0, 0},
                        {"m6 TMA S=8 + 1 local + stores", 8, 1, 1, 0, 0},
                        {"m8 cp.async + TMA + 4 local + stores", 8, 4, 1, 1, 0},
                        {"m5 stores only", 0, 0, 1, 0, 0},
                        {"m9 cp.async + TMA + 1 local + stores", 8, 1, 1, 1, 0},
                        {"m10 4 local, no weights", 0, 4, 0, 0, 0},
                        {"m11 TMA S=8 + 4 local, private tokens", 8, 4, 0, 0, 0, 1, 0},
                        {"m12 4 local, then TMA S=8", 8, 4, 0, 0, 0, 0, 1},
                        {"m13 1 local, no weights", 0, 1, 0, 0, 0}};
  std::vector<uint64_t> h(kCtas * 4);
  for (const Mode& m : modes) {
    std::vector<double> first, tok, done, span;
    for (int rep = 0; rep < 7; ++rep) {
      if (read_flush)
        k_read_flush<<<264, 512>>>(fl, fn, reinterpret_cast<unsigned*>(stamps));
      else
        k_flush<<<264, 512>>>(fl, fn);
      Args a{tokens, out, stamps, m.stages, m.local, m.store, m.cp, m.prefetch, w, m.priv, m.after};
      k_start<<<kCtas, kThreads, kSmem>>>(wmap, a);
      PROBE_CHECK(cudaGetLastError());
      PROBE_CHECK(cudaDeviceSynchronize());
      PROBE_CHECK(cudaMemcpy(h.data(), stamps, h.size() * 8, cudaMemcpyDeviceToHost));
      uint64_t t0 = ~0ull, tend = 0;
      for (int c = 0; c < kCtas; ++c) t0 = std::min(t0, h[4 * c]), tend = std::max(tend, h[4 * c + 2]);
      std::vector<double> f, t, d;
      for (int c = 0; c < kCtas; ++c) {
        f.push_back((h[4 * c + 1] - t0) * 1e-3);
        t.push_back((h[4 * c + 3] - t0) * 1e-3);
        d.push_back((h[4 * c + 2] - t0) * 1e-3);
      }
      if (rep == 0) continue;  // the first launch loads the module
      first.push_back(med(f));
      tok.push_back(med(t));
      done.push_back(med(d));
      span.push_back((tend - t0) * 1e-3);
    }
    std::printf("STAMPS %-32s us from the first entry (medians over CTAs, median of 6 launches): "
                "tokens decoded %.2f, first stage %.2f, done %.2f, last CTA done %.2f\n",
                m.name, med(tok), med(first), med(done), med(span));
  }
  PROBE_CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
  return 0;
}
