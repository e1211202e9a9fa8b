// SPDX-License-Identifier: Apache-2.0
// P188 probe (docs/perf-notes.md): the rate of wgmma m64n128k16 with both operands in shared
// memory (SS) on the `persistent` kernels' CTA shape (two consumer warpgroups of 64 weight rows x
// 128 tokens), with the weights decoded from e2m1 + e4m3 into the 128-byte-swizzled K-major layout
// the token tiles have, against calibrate's path (decode in registers, wgmma RS). No global
// traffic: operands written to shared memory once, as calibrate's ceiling loop does.
//   mode 0  RS + decode in the consumers' registers (calibrate's decode+wgmma loop)
//   mode 1  SS, A fixed in shared memory (4 stages turned each chunk), no decode
//   mode 2  SS, each consumer warpgroup decodes its next chunk into a second A buffer while this
//           chunk's wgmmas run (128-thread named barrier per chunk)
//   mode 3  SS fed by a decoder warpgroup through a ring of decoded A tiles (mbarriers full/empty)
//   mode 4  mode 0 with one consumer warpgroup (64 weight rows; P189)
//   mode 5  mode 0 with warpgroup 1's B on a second token tile (each warpgroup its own B; P189)
//   mode 6  mode 0 with the warpgroups' chunks issued in turn (named barriers 1, 2: ping-pong; P190)
//   mode 7  mode 0 with warpgroup 1 started after warpgroup 0's first chunk is issued (P190)
// Build: nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -Isrc -o ss_probe scripts/dev/ss_probe.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <cstdio>
#include <vector>

#include "core/fp4_decode.cuh"
#include "core/hopper.cuh"
#include "core/random_operands.cuh"
#include "probe_common.cuh"

using namespace nvfp4;

namespace {

constexpr int kStages = 4;
constexpr int kChunks = 16384;

struct alignas(1024) Smem {
  __half a[kStages][128 * 64];  // decoded weights, 128 rows x 128 bytes, 128-byte swizzle
  __half tokens[128 * 64];      // B: 128 token rows x 64 K, 128-byte swizzle
  __half tokens2[128 * 64];     // mode 5's second B tile
  uint8_t packed[kStages][128 * 32];
  uint8_t scales[kStages][128 * 4];
  uint64_t full[kStages], empty[kStages];
};

__device__ __forceinline__ Smem& smem() {
  extern __shared__ uint8_t dyn[];
  const uint32_t a = sm90::smem_addr(dyn);
  return *reinterpret_cast<Smem*>(dyn + ((1024 - (a & 1023)) & 1023));
}

// wgmma m64n128k16, both operands in shared memory (descriptors), accumulating.
__device__ __forceinline__ void wgmma_m64n128k16_ss(float (&d)[64], uint64_t adesc, uint64_t bdesc) {
#if NVFP4_SM90A
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
               "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, %64, %65, p, 1, 1, 0, 0;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
               : "l"(adesc), "l"(bdesc));
#else
  (void)d; (void)adesc; (void)bdesc; __trap();
#endif
}

__device__ __forceinline__ void sts128(uint32_t addr, uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(a), "r"(b), "r"(c), "r"(d) : "memory");
}

// One 16-element block of row `row` (block b of the chunk's 4) of stage `s`, decoded and stored as
// the row's 16-byte chunks 2b and 2b + 1 of the swizzled A tile at `tile`.
__device__ __forceinline__ void decode_store_block(const Smem& sm, int s, int row, int b, uint32_t tile) {
  const uint2 packed = *reinterpret_cast<const uint2*>(sm.packed[s] + row * 32 + 8 * b);
  uint32_t h[8];
  fp4::decode_block16_raw(packed, fp4::e4m3_to_half2_bcast(sm.scales[s][row * 4 + b]), h);
  const uint32_t base = tile + row * 128;
  sts128(base + (((2 * b) ^ (row & 7)) << 4), h[0], h[1], h[2], h[3]);
  sts128(base + (((2 * b + 1) ^ (row & 7)) << 4), h[4], h[5], h[6], h[7]);
}

__device__ __forceinline__ void fill(Smem& sm) {
  for (int i = threadIdx.x; i < kStages * 128 * 64; i += blockDim.x) (&sm.a[0][0])[i] = random_half(i, 3u);
  for (int i = threadIdx.x; i < 128 * 64; i += blockDim.x) sm.tokens[i] = random_half(i, 5u);
  for (int i = threadIdx.x; i < 128 * 64; i += blockDim.x) sm.tokens2[i] = random_half(i, 8u);
  for (int i = threadIdx.x; i < kStages * 128 * 32; i += blockDim.x) (&sm.packed[0][0])[i] = random_byte(i, 6u);
  for (int i = threadIdx.x; i < kStages * 128 * 4; i += blockDim.x) (&sm.scales[0][0])[i] = random_scale(i, 7u);
}

__device__ __forceinline__ void named_arrive256(uint32_t id) {
  asm volatile("bar.arrive %0, 256;" ::"r"(id) : "memory");
}

__device__ __forceinline__ void mma_ss(float (&acc)[64], uint32_t atile, uint32_t tok) {
  sm90::wgmma_fence();
#pragma unroll
  for (int j = 0; j < 4; ++j)
    wgmma_m64n128k16_ss(acc, sm90::desc_kmajor_sw128(atile + 32 * j), sm90::desc_kmajor_sw128(tok + 32 * j));
  sm90::wgmma_commit();
}

template <int kMode>
__global__ void __launch_bounds__(kMode == 3 ? 384 : kMode == 4 ? 128 : 256, 1) probe(int chunks, float* sink) {
#if NVFP4_SM90A
  Smem& sm = smem();
  fill(sm);
  probe::init_ring(sm.full, sm.empty, kStages, 128, 8);
  const int lane = threadIdx.x % 32;
  const uint32_t tok = kMode == 5 && threadIdx.x >= 128 ? sm90::smem_addr(sm.tokens2) : sm90::smem_addr(sm.tokens);
  if constexpr (kMode == 3) {
    if (threadIdx.x < 128) {  // the decoder warpgroup: row threadIdx.x of every chunk
      const int row = threadIdx.x;
      for (int c = 0; c < chunks; ++c) {
        const int s = c % kStages, k = c / kStages;
        if (k > 0) sm90::mbar_wait(&sm.empty[s], (k - 1) & 1);
        const uint32_t tile = sm90::smem_addr(sm.a[s]);
#pragma unroll
        for (int b = 0; b < 4; ++b) decode_store_block(sm, s, row, b, tile);
        sm90::fence_proxy_async_smem();
        sm90::mbar_arrive(&sm.full[s]);
      }
      return;
    }
  }
  const int ct = kMode == 3 ? threadIdx.x - 128 : threadIdx.x;  // consumer thread 0..255
  const int wg = ct / 128, warp = ct / 32;
  float acc[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) acc[i] = 0.0f;
  sm90::fence_regs(acc);
  if constexpr (kMode == 0 || kMode == 4 || kMode == 5 || kMode == 7) {
    const int row = (warp / 4) * 64 + (warp % 4) * 16 + lane / 4, t = lane % 4;
    uint32_t ha[2][8], hb[2][8];
    if (kMode == 7 && wg == 1) sm90::named_sync<256>(3);  // after warpgroup 0's first chunk
    for (int c = 0; c < chunks; c += 2) {
      probe::decode_rows(sm.packed[c % kStages], sm.scales[c % kStages], row, (t + c) % 4, ha);
      probe::mma_rs(acc, ha, tok);
      if (kMode == 7 && wg == 0 && c == 0) named_arrive256(3);
      sm90::wgmma_wait<1>();
      probe::decode_rows(sm.packed[(c + 1) % kStages], sm.scales[(c + 1) % kStages], row, (t + c + 1) % 4, hb);
      probe::mma_rs(acc, hb, tok);
      sm90::wgmma_wait<1>();
    }
  } else if constexpr (kMode == 6) {
    const int row = (warp / 4) * 64 + (warp % 4) * 16 + lane / 4, t = lane % 4;
    const uint32_t mine = 1 + wg, other = 2 - wg;  // warpgroup w issues after an arrival on barrier 1 + w
    uint32_t ha[2][8], hb[2][8];
    if (wg == 1) named_arrive256(1);  // warpgroup 0 first
    for (int c = 0; c < chunks; c += 2) {
      probe::decode_rows(sm.packed[c % kStages], sm.scales[c % kStages], row, (t + c) % 4, ha);
      sm90::named_sync<256>(mine);
      probe::mma_rs(acc, ha, tok);
      named_arrive256(other);
      sm90::wgmma_wait<1>();
      probe::decode_rows(sm.packed[(c + 1) % kStages], sm.scales[(c + 1) % kStages], row, (t + c + 1) % 4, hb);
      sm90::named_sync<256>(mine);
      probe::mma_rs(acc, hb, tok);
      if (!(wg == 1 && c + 2 >= chunks)) named_arrive256(other);  // no arrival left behind at the end
      sm90::wgmma_wait<1>();
    }
  } else if constexpr (kMode == 1) {
    for (int c = 0; c < chunks; ++c) {
      mma_ss(acc, sm90::smem_addr(sm.a[c % kStages]) + wg * 8192, tok);
      sm90::wgmma_wait<1>();
    }
  } else if constexpr (kMode == 2) {
    const int r = (ct % 128) / 2, h = ct % 2;  // row in the warpgroup's 64, half of the chunk
    auto decode_own = [&](int c) {
      const uint32_t tile = sm90::smem_addr(sm.a[c % 2]) + wg * 8192;
      decode_store_block(sm, c % kStages, r, 2 * h, tile);
      decode_store_block(sm, c % kStages, r, 2 * h + 1, tile);
      sm90::fence_proxy_async_smem();
      sm90::named_sync<128>(1 + wg);
    };
    decode_own(0);
    for (int c = 0; c < chunks; ++c) {
      mma_ss(acc, sm90::smem_addr(sm.a[c % 2]) + wg * 8192, tok);
      sm90::wgmma_wait<1>();
      if (c + 1 < chunks) decode_own(c + 1);
    }
  } else {
    for (int c = 0; c < chunks; ++c) {
      const int s = c % kStages;
      sm90::mbar_wait(&sm.full[s], (c / kStages) & 1);
      mma_ss(acc, sm90::smem_addr(sm.a[s]) + wg * 8192, tok);
      sm90::wgmma_wait<1>();
      if (c > 0 && lane == 0) sm90::mbar_arrive(&sm.empty[(c - 1) % kStages]);
    }
  }
  sm90::wgmma_wait<0>();
  probe::sink_acc(acc, sink);
#else
  (void)chunks;
  (void)sink;
#endif
}

template <int kMode>
void run(int sms, float* sink, int smem) {
  auto* k = probe<kMode>;
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  const int threads = kMode == 3 ? 384 : kMode == 4 ? 128 : 256;
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> ms;
  // SS_GAP_MS: idle milliseconds before each launch (P190: the board's sustained-load slowdown).
  static const int gap_ms = std::getenv("SS_GAP_MS") ? std::atoi(std::getenv("SS_GAP_MS")) : 0;
  for (int r = 0; r < 22; ++r) {
    if (gap_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(gap_ms));
    cudaEventRecord(a);
    k<<<sms, threads, smem>>>(kChunks, sink);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float t = 0;
    cudaEventElapsedTime(&t, a, b);
    if (r >= 2) ms.push_back(t);
  }
  const cudaError_t e = cudaGetLastError();
  std::sort(ms.begin(), ms.end());
  const double med = ms[ms.size() / 2];
  const double rows = kMode == 4 ? 64 : 128;  // weight rows per CTA
  const double flop = 2.0 * rows * 128 * 64 * double(kChunks) * sms;
  std::printf("mode %d: %s median %.3f ms (min %.3f max %.3f)  %.0f TFLOP/s  %.4f us per K64 chunk of the CTA  [",
              kMode, cudaGetErrorString(e), med, ms.front(), ms.back(), flop / (med * 1e-3) / 1e12,
              med * 1e3 / kChunks);
  for (float t : ms) std::printf(" %.3f", t);
  std::printf(" ]\n");
}

}  // namespace

int main() {
  const probe::OnePerSm fit = probe::one_cta_per_sm(sizeof(Smem));
  const int sms = fit.sms, smem = fit.smem;
  float* sink = nullptr;
  cudaMalloc(&sink, sizeof(float));
  std::printf("%d SMs, %d bytes of shared memory per CTA (Smem %zu)\n", sms, smem, sizeof(Smem));
  if (const char* only = std::getenv("SS_ONLY_MODE0")) {  // P190: mode 0 alone, 3 x 20 launches
    (void)only;
    for (int rep = 0; rep < 3; ++rep) run<0>(sms, sink, smem);
    return 0;
  }
  for (int rep = 0; rep < 3; ++rep) {
    run<0>(sms, sink, smem);
    run<1>(sms, sink, smem);
    run<2>(sms, sink, smem);
    run<3>(sms, sink, smem);
    run<4>(sms, sink, smem);
    run<5>(sms, sink, smem);
    run<6>(sms, sink, smem);
    run<7>(sms, sink, smem);
    run<0>(sms, sink, smem);
  }
  return 0;
}
