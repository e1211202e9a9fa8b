// SPDX-License-Identifier: Apache-2.0
// P203 probe (docs/perf-notes.md): does the decode+wgmma loop's first steps' slowdown (P200-P202:
// the kernels' first 8 K steps ~30-40 % more SM cycles than their last, calibrate's loop only +6 %)
// come from memory traffic on the chip (other SMs streaming HBM, or this SM's own copies landing)?
// The loop is calibrate's decode+wgmma RS loop (ss_probe mode 0: two consumer warpgroups, 64 weight
// rows x 128 tokens each, operands in shared memory only); warp 0 of a third warpgroup can stream
// global memory into its own 64 KiB of shared memory with cp.async.bulk (16 KiB a copy, 4 in flight),
// as the kernels' producer does, in this CTA or in the CTAs of other SMs. %clock64 is stamped by
// consumer thread 0 at chosen chunk boundaries, %globaltimer at the loop's start and end.
// Build: nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -Isrc -o ramp_probe scripts/dev/ramp_probe.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "core/fp4_decode.cuh"
#include "core/hopper.cuh"
#include "core/random_operands.cuh"
#include "probe_common.cuh"

using namespace nvfp4;

namespace {

constexpr int kStages = 4;
constexpr int kChunks = 256;
constexpr int kStreamSlots = 4;
constexpr uint32_t kStreamBytes = 16384;
constexpr int kMarks = 18;  // chunk boundaries stamped (even: the loop takes two chunks a turn)
__constant__ int kMark[kMarks] = {0, 2, 4, 6, 8, 10, 12, 14, 16, 20, 24, 32, 48, 64, 96, 128, 192, 256};
constexpr int kSlots = 2 * kMarks + 2;  // + globaltimer at the loop's start and end, + ring_probe's wait cycles to each mark

struct alignas(1024) Smem {
  __half tokens[128 * 64];  // B: 128 token rows x 64 K, 128-byte swizzle
  uint8_t stream[kStreamSlots][kStreamBytes];
  uint8_t packed[kStages][128 * 32];
  uint8_t scales[kStages][128 * 4];
  uint64_t sfull[kStreamSlots];
  int done;
};

__device__ __forceinline__ Smem& smem() {
  extern __shared__ uint8_t dyn[];
  const uint32_t a = sm90::smem_addr(dyn);
  return *reinterpret_cast<Smem*>(dyn + ((1024 - (a & 1023)) & 1023));
}

struct Params {
  int mma_every;          // CTA b runs the loop when b % mma_every == 0 (1: every CTA)
  int stream_own;         // the loop's CTAs stream too: 0 no, -1 until their loop ends, n > 0: n copies
  int stream_others;      // the other CTAs stream n copies (0: they exit at once)
  const uint8_t* src;     // streamed from, wrapping at src_bytes
  size_t src_bytes;
  long long* stamps;      // kSlots per CTA
  float* sink;
  unsigned mark_mask;     // bit i: kMark[i] stamped (each stamp costs the warpgroup ~200 cycles, P203e)
};

__device__ int stream(Smem& sm, const Params& p, int copies) {
  // One thread, 4 copies of 16 KiB in flight into this CTA's own buffer (nothing reads it).
  size_t off = (size_t{blockIdx.x} * 7919u * kStreamBytes) % p.src_bytes;
  int i = 0;
  for (; copies < 0 ? !*reinterpret_cast<volatile int*>(&sm.done) && i < (1 << 20) : i < copies; ++i) {
    const int s = i % kStreamSlots;
    if (i >= kStreamSlots) sm90::mbar_wait(&sm.sfull[s], ((i / kStreamSlots) - 1) & 1);
    sm90::mbar_arrive_expect_tx(&sm.sfull[s], kStreamBytes);
    sm90::bulk_load(sm90::smem_addr(sm.stream[s]), p.src + off, kStreamBytes, sm90::smem_addr(&sm.sfull[s]));
    off += kStreamBytes;
    if (off + kStreamBytes > p.src_bytes) off = 0;
  }
  return i;
}

__global__ void __launch_bounds__(384, 1) fixed_probe(Params p) {
#if NVFP4_SM90A
  Smem& sm = smem();
  const bool mma = blockIdx.x % p.mma_every == 0;
  for (int i = threadIdx.x; i < 128 * 64; i += blockDim.x) sm.tokens[i] = random_half(i, 5u);
  for (int i = threadIdx.x; i < kStages * 128 * 32; i += blockDim.x) (&sm.packed[0][0])[i] = random_byte(i, 6u);
  for (int i = threadIdx.x; i < kStages * 128 * 4; i += blockDim.x) (&sm.scales[0][0])[i] = random_scale(i, 7u);
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStreamSlots; ++s) sm90::mbar_init(&sm.sfull[s], 1);
    sm.done = 0;
    sm90::mbar_init_fence();
  }
  sm90::fence_proxy_async_smem();
  __syncthreads();
  if (threadIdx.x < 128) {
    const int copies = mma ? p.stream_own : p.stream_others;
    if (threadIdx.x == 0 && copies != 0) {
      const int issued = stream(sm, p, copies);
      // every copy issued has landed before the CTA leaves: slot s's last use completes phase uses - 1
      for (int s = 0; s < kStreamSlots && s < issued; ++s) {
        const int uses = (issued - s + kStreamSlots - 1) / kStreamSlots;
        sm90::mbar_wait(&sm.sfull[s], (uses - 1) & 1);
      }
    }
    return;
  }
  if (!mma) return;
  const int ct = threadIdx.x - 128;
  const int warp = ct / 32, lane = ct % 32;
  const uint32_t tok = sm90::smem_addr(sm.tokens);
  long long* out = p.stamps + size_t{blockIdx.x} * kSlots;
  float acc[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) acc[i] = 0.0f;
  sm90::fence_regs(acc);
  const int row = (warp / 4) * 64 + (warp % 4) * 16 + lane / 4, t = lane % 4;
  uint32_t ha[2][8], hb[2][8];
  int m = 0;
  if (ct == 0) out[kMarks] = probe::globaltimer_now();
  for (int c = 0; c < kChunks; c += 2) {
    if (ct == 0 && c == kMark[m]) {
      if (p.mark_mask >> m & 1u) out[m] = probe::clock64_now();
      ++m;
    }
    probe::decode_rows(sm.packed[c % kStages], sm.scales[c % kStages], row, (t + c) % 4, ha);
    probe::mma_rs(acc, ha, tok);
    sm90::wgmma_wait<1>();
    probe::decode_rows(sm.packed[(c + 1) % kStages], sm.scales[(c + 1) % kStages], row, (t + c + 1) % 4, hb);
    probe::mma_rs(acc, hb, tok);
    sm90::wgmma_wait<1>();
  }
  sm90::wgmma_wait<0>();
  if (ct == 0) {
    out[kMarks - 1] = probe::clock64_now();
    out[kMarks + 1] = probe::globaltimer_now();
    *reinterpret_cast<volatile int*>(&sm.done) = 1;
  }
  probe::sink_acc(acc, p.sink);
#else
  (void)p;
#endif
}

// The same loop fed as the kernels feed theirs: an 8-stage ring, each stage a token tile (16 KiB of
// a K-step-major token array every CTA reads: L2 after the first CTA), the CTA's 128 weight rows'
// packed e2m1 (4 KiB, its own HBM region) and their scales (512 B), copied by producer warp 0 with
// cp.async.bulk on `full` barriers, released by the consumers on `empty` (256 arrivals), as the
// `persistent` kernels do. kRingTokens 0: the token tile is not copied (fixed in shared memory).
constexpr int kRing = 8;
constexpr uint32_t kTokTile = 16384, kPackedTile = 4096, kScaleTile = 512;
struct alignas(1024) RingSmem {
  uint8_t tok[kRing][kTokTile];
  uint8_t packed[kRing][kPackedTile];
  uint8_t scales[kRing][kScaleTile];
  uint64_t full[kRing], empty[kRing];
};

struct RingParams {
  int mma_every;            // CTA b runs when b % mma_every == 0 (the others exit)
  int role_warps;           // 1 or 3 (see ring_probe)
  int copy_tokens;          // 1: each stage's token tile copied from `tokens`, 0: left in place, -1: no copy at all
  int chunks;
  const uint8_t* tokens;    // chunks x 16 KiB, shared by every CTA
  const uint8_t* weights;   // per CTA: chunks x (4 KiB + 512 B)
  long long* stamps;
  float* sink;
  unsigned mark_mask;
};

__global__ void __launch_bounds__(384, 1) ring_probe(RingParams p) {
#if NVFP4_SM90A
  if (blockIdx.x % p.mma_every != 0) return;
  extern __shared__ uint8_t dyn[];
  const uint32_t a0 = sm90::smem_addr(dyn);
  RingSmem& sm = *reinterpret_cast<RingSmem*>(dyn + ((1024 - (a0 & 1023)) & 1023));
  if (threadIdx.x == 0) {
    for (int s = 0; s < kRing; ++s) {
      sm90::mbar_init(&sm.full[s], p.role_warps);
      sm90::mbar_init(&sm.empty[s], 256);
    }
    sm90::mbar_init_fence();
  }
  for (int i = threadIdx.x; i < kRing * int(kTokTile) / 2; i += blockDim.x)
    reinterpret_cast<__half*>(&sm.tok[0][0])[i] = random_half(i, 5u);
  sm90::fence_proxy_async_smem();
  __syncthreads();
  const size_t per_chunk = kPackedTile + kScaleTile;
  const uint8_t* mine = p.weights + size_t{blockIdx.x} * p.chunks * per_chunk;
  if (threadIdx.x < 128) {
    // role_warps 1: thread 0 issues every copy of a stage; 3: warps 0-2 each run the loop over every
    // stage with all lanes waiting on `empty`, lane 0 issuing its role's copy (tokens, weights,
    // scales), as the kernels' role loops (their `full` counts one arrival a role).
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const bool one = p.role_warps == 1;
    if (one ? threadIdx.x == 0 : warp < 3) {
      const bool tok = one || warp == 0, w = one || warp == 1, sf = one || warp == 2;
      const bool leader = one || lane == 0;
      const uint32_t bytes = p.copy_tokens < 0 ? 0
                                               : (tok && p.copy_tokens ? kTokTile : 0) + (w ? kPackedTile : 0) +
                                                     (sf ? kScaleTile : 0);
      for (int c = 0; c < p.chunks; ++c) {
        const int s = c % kRing;
        if (c >= kRing) sm90::mbar_wait(&sm.empty[s], ((c / kRing) - 1) & 1);
        if (!leader) continue;
        const uint32_t fb = sm90::smem_addr(&sm.full[s]);
        if (bytes == 0) {  // barriers only: no copy (the stage keeps what it holds)
          sm90::mbar_arrive(fb);
          continue;
        }
        sm90::mbar_arrive_expect_tx(fb, bytes);
        if (tok && p.copy_tokens > 0)
          sm90::bulk_load(sm90::smem_addr(sm.tok[s]), p.tokens + size_t{c} * kTokTile, kTokTile, fb);
        if (w) sm90::bulk_load(sm90::smem_addr(sm.packed[s]), mine + c * per_chunk, kPackedTile, fb);
        if (sf) sm90::bulk_load(sm90::smem_addr(sm.scales[s]), mine + c * per_chunk + kPackedTile, kScaleTile, fb);
      }
    }
    return;
  }
  const int ct = threadIdx.x - 128;
  const int warp = ct / 32, lane = ct % 32;
  long long* out = p.stamps + size_t{blockIdx.x} * kSlots;
  float acc[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) acc[i] = 0.0f;
  sm90::fence_regs(acc);
  const int row = (warp % 4) * 16 + lane / 4, t = lane % 4, wg = warp / 4;
  int m = 0;
  long long waited = 0;  // thread 0's stages not full on arrival so far (ring_probe: slots kMarks + 2 + m)
  if (ct == 0) out[kMarks] = probe::globaltimer_now();
  uint32_t ha[2][8], hb[2][8];
  // one chunk: its stage full, its weights decoded into h, its wgmmas issued, the previous chunk's
  // stage released once its wgmmas are done (two register sets in turn, as calibrate's loop)
  const auto chunk = [&](int c, uint32_t (&h)[2][8]) {
    const int s = c % kRing;
    if (ct == 0) {  // a stage not full on arrival counted (test_wait: no clock read in the loop)
      uint32_t ready;
      asm volatile("{\n.reg .pred p;\nmbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}"
                   : "=r"(ready) : "r"(sm90::smem_addr(&sm.full[s])), "r"(uint32_t((c / kRing) & 1)) : "memory");
      waited += ready ? 0 : 1;
    }
    sm90::mbar_wait(&sm.full[s], (c / kRing) & 1);
    probe::decode_rows(sm.packed[s], sm.scales[s], wg * 64 + row, t, h);
    probe::mma_rs(acc, h, sm90::smem_addr(sm.tok[s]));
    sm90::wgmma_wait<1>();
    if (c > 0) sm90::mbar_arrive(&sm.empty[(c - 1) % kRing]);
  };
  for (int c = 0; c < p.chunks; c += 2) {
    if (ct == 0 && c == kMark[m]) {
      if (p.mark_mask >> m & 1u) {
        out[kMarks + 2 + m] = waited;
        out[m] = probe::clock64_now();
      }
      ++m;
    }
    chunk(c, ha);
    chunk(c + 1, hb);
  }
  sm90::wgmma_wait<0>();
  if (ct == 0) {
    out[kMarks - 1] = probe::clock64_now();
    out[2 * kMarks + 1] = waited;
    out[kMarks + 1] = probe::globaltimer_now();
  }
  probe::sink_acc(acc, p.sink);
#else
  (void)p;
#endif
}

constexpr unsigned kDense = (1u << kMarks) - 1;  // every mark: 0, 2, 4, ..., 16, 20, 24, 32, 48, 64, ...
constexpr unsigned kSparse = 1u << 0 | 1u << 8 | 1u << 11 | 1u << 13 | 1u << 15 | 1u << 17;  // 0, 16, 32, 64, 128, 256
struct Config {
  const char* name;
  int ring;  // 0: probe (operands fixed in shared memory); ring_probe 1: tokens + weights copied, 2: weights only, 3: no copies; + 4: three role warps
  int grid;  // 0: every SM
  int mma_every, stream_own, stream_others;
  size_t memset_before;  // bytes memset just before each launch (the timer's L2 flush does 2x L2)
  int gap_ms;
  unsigned mark_mask = kDense;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

int main() {
  const probe::OnePerSm fit = probe::one_cta_per_sm(sizeof(Smem));
  const int sms = fit.sms, smem = fit.smem;
  cudaFuncSetAttribute(fixed_probe, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  const int ring_smem = sizeof(RingSmem) + 1024;
  cudaFuncSetAttribute(ring_probe, cudaFuncAttributeMaxDynamicSharedMemorySize, ring_smem);
  const size_t src_bytes = size_t{1} << 30;
  uint8_t* src = nullptr;
  float* sink = nullptr;
  long long* stamps = nullptr;
  cudaMalloc(&src, src_bytes);
  cudaMemset(src, 1, src_bytes);
  cudaMalloc(&sink, sizeof(float));
  cudaMalloc(&stamps, sizeof(long long) * kSlots * sms);
  std::printf("%d SMs, %d bytes of shared memory per CTA; %d chunks of K64 a CTA; cycles per chunk (median over CTAs and launches)\n",
              sms, smem, kChunks);
  const int marks[kMarks] = {0, 2, 4, 6, 8, 10, 12, 14, 16, 20, 24, 32, 48, 64, 96, 128, 192, 256};
  const Config configs[] = {
      {"loop alone, every SM: stamps dense", 0, 0, 1, 0, 0, 0, 20, kDense},
      {"loop alone, every SM: stamps sparse", 0, 0, 1, 0, 0, 0, 20, kSparse},
      {"loop alone, 1 CTA: dense", 0, 1, 1, 0, 0, 0, 20, kDense},
      {"loop alone, 1 CTA: sparse", 0, 1, 1, 0, 0, 0, 20, kSparse},
      {"ring: barriers only, 1 CTA: dense", 3, 1, 1, 0, 0, 0, 20, kDense},
      {"ring: barriers only, 1 CTA: sparse", 3, 1, 1, 0, 0, 0, 20, kSparse},
      {"ring: tokens + weights, every SM: dense", 1, 0, 1, 0, 0, 0, 20, kDense},
      {"ring: tokens + weights, every SM: sparse", 1, 0, 1, 0, 0, 0, 20, kSparse},
      {"ring, 3 role warps: tokens + weights, every SM: dense", 5, 0, 1, 0, 0, 0, 20, kDense},
      {"ring, 3 role warps: tokens + weights, every SM: sparse", 5, 0, 1, 0, 0, 0, 20, kSparse},
      {"ring, 3 role warps, every SM, after a 100 MB memset: sparse", 5, 0, 1, 0, 0, 100u << 20, 20, kSparse},
      {"loop on every SM + own 10 x 16 KiB (a ring fill): sparse", 0, 0, 1, 10, 0, 0, 20, kSparse},
  };
  const int windows[][2] = {{0, 16}, {16, 32}, {32, 64}, {64, 128}, {128, 256}};
  std::printf("%-56s", "config");
  for (auto& w : windows) std::printf(" %4d-%-4d", w[0], w[1]);
  std::printf("\n");
  for (const Config& c : configs) {
    const int grid = c.grid == 0 ? sms : c.grid;
    std::vector<std::vector<double>> per(std::size(windows)), wait(std::size(windows));
    std::vector<double> mhz_all;
    for (int r = 0; r < 12; ++r) {
      if (c.gap_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(c.gap_ms));
      cudaMemset(stamps, 0, sizeof(long long) * kSlots * sms);
      if (c.memset_before) cudaMemsetAsync(src + src_bytes / 2, r, c.memset_before);
      if (c.ring == 0)
        fixed_probe<<<grid, 384, smem>>>(Params{c.mma_every, c.stream_own, c.stream_others, src, src_bytes, stamps, sink, c.mark_mask});
      else  // tokens in the first 64 MiB of src, each CTA's weights after them
        ring_probe<<<grid, 384, ring_smem>>>(
            RingParams{c.mma_every, c.ring >= 4 ? 3 : 1, c.ring % 4 == 1 ? 1 : c.ring % 4 == 2 ? 0 : -1, kChunks, src, src + (64u << 20), stamps, sink, c.mark_mask});
      if (cudaDeviceSynchronize() != cudaSuccess) {
        std::printf("launch failed: %s\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
      }
      if (r < 2) continue;
      std::vector<long long> h(size_t{kSlots} * sms);
      cudaMemcpy(h.data(), stamps, sizeof(long long) * h.size(), cudaMemcpyDeviceToHost);
      for (int b = 0; b < grid; ++b) {
        const long long* s = h.data() + size_t{b} * kSlots;
        if (b % c.mma_every != 0 || s[kMarks + 1] == 0) continue;
        auto at = [&](int chunk) {
          for (int i = 0; i < kMarks; ++i)
            if (marks[i] == chunk) return s[i];
          return 0ll;
        };
        auto waited = [&](int chunk) {
          for (int i = 0; i < kMarks; ++i)
            if (marks[i] == chunk) return s[kMarks + 2 + i];
          return 0ll;
        };
        for (size_t w = 0; w < std::size(windows); ++w) {
          per[w].push_back(double(at(windows[w][1]) - at(windows[w][0])) / (windows[w][1] - windows[w][0]));
          wait[w].push_back(double(waited(windows[w][1]) - waited(windows[w][0])) / (windows[w][1] - windows[w][0]));
        }
        const double ns = double(s[kMarks + 1] - s[kMarks]);
        mhz_all.push_back(double(s[kMarks - 1] - s[0]) / ns * 1e3);
      }
    }
    std::printf("%-56s", c.name);
    for (auto& v : per) std::printf(" %9.0f", median(v));
    std::printf("   %.0f MHz over the loop\n", median(mhz_all));
    if (c.ring != 0) {
      std::printf("%-56s", "    stages not full on arrival, a chunk (thread 0)");
      for (auto& v : wait) std::printf(" %9.2f", median(v));
      std::printf("\n");
    }
  }
  return 0;
}
