// SPDX-License-Identifier: Apache-2.0
// P204 probe (docs/perf-notes.md): what the `persistent` kernels' ring costs their K loop. The
// consumers' loop is the kernels' own form (kernels/common/gemm_wgmma.cuh, 2 x 128: a K step is
// load_step's two LDS.64 and two scale bytes, then four k16 slices, each `wgmma_wait<1>`, decode of
// the slice into one of two fragment sets, one wgmma m64n128k16 RS and a commit; the previous step's
// stage released at slice 1), over an 8-stage ring of token tile (16 KiB) + packed weights (4 KiB) +
// scales (512 B) a stage. Modes:
//   0  no barriers: the stages are read in turn, never waited on or released (the loop's own rate)
//   1  barriers only: `full` / `empty` as the kernels (256 consumer arrivals a stage), a producer
//      thread arriving on `full` with no copy
//   2  as 1, one arrival a consumer warp (lane 0 after __syncwarp; `empty` counts 8)
//   3  as 1, with the copies: three producer warps (tokens from an array every CTA reads, weights
//      and scales from the CTA's own), every lane waiting on `empty`, lane 0 issuing (the kernels'
//      role loops)
//   4  as 3, one arrival a consumer warp
//   P228 (the 64-row CTA's pattern, P179/P226b, without the kernels' other code):
//  10  as 3, each consumer warpgroup on stages of its own (steps of its parity: 2 x 256 stages, 128
//      arrivals a stage), every warpgroup running 256 steps as in 3
//  11  as 10, no token tile copied (the token warp arrives with no bytes)
//  12  as 3, no token tile copied
//  13  calibrate's form (6) with the copies (3 role warps), shared stages
//  14  13 with each warpgroup on stages of its own (as 10)
//  15  3 (shared stages), warpgroup 1's wgmmas reading the next stage's token tile (two B tiles)
//  16  10 (stages of its own), both warpgroups' wgmmas reading the even stage's token tile of their pair
//  17  1 (barriers only, no copies) with each warpgroup on stages of its own
//  18  10 with a producer warp per warpgroup (warp p fills the stages of parity p, all three copies
//      under one arrival), so that neither warpgroup's refills queue behind the other's
// %clock64 at steps 0, 16, 32, 64, 128, 256 (one stamp ~100 cycles, P203e): a warpgroup's steps.
// Build: nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -Isrc -Ikernels --expt-relaxed-constexpr \
//          -o kloop_probe scripts/dev/kloop_probe.cu
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
#include "common/gemm_wgmma.cuh"  // the kernels' own StepWeights and decode_slice
#include "probe_common.cuh"

using namespace nvfp4;

namespace {

#ifndef KLOOP_RING
#define KLOOP_RING 8  // P228: -DKLOOP_RING=10 for the deeper ring
#endif
constexpr int kRing = KLOOP_RING, kSteps = 256;
constexpr uint32_t kTok = 16384, kW = 4096, kSf = 512, kStage = kTok + kW + kSf;  // 20992, 1024-aligned? no: pad
constexpr uint32_t kStagePad = (kStage + 1023) / 1024 * 1024;
constexpr int kMarks = 6;
constexpr int kMark[kMarks] = {0, 16, 32, 64, 128, 256};
constexpr int kSlots = kMarks + 4;  // + the two warpgroups' stages found not full (P228)

struct Params {
  const uint8_t* tokens;   // kSteps x 16 KiB, shared by every CTA
  const uint8_t* weights;  // per CTA: kSteps x (4 KiB + 512 B)
  long long* stamps;
  float* sink;
};

template <int kMode>
__global__ void __launch_bounds__(384, 1) kloop(Params p) {
#if NVFP4_SM90A
  constexpr bool kBarriers = kMode != 0, kCopies = kMode == 3 || kMode == 4 || (kMode >= 8 && kMode != 17),
                 kWarpArrive = kMode == 2 || kMode == 4, kAlt = kMode == 10 || kMode == 11 || kMode == 14 || kMode == 16 || kMode == 17 || kMode == 18,
                 kSplitProd = kMode == 18,
                 kNoTok = kMode == 11 || kMode == 12;
  constexpr int kStages = kAlt ? 2 * kSteps : kSteps;  // stages the producer fills
  extern __shared__ uint8_t dyn[];
  const uint32_t a0 = sm90::smem_addr(dyn);
  uint8_t* base = dyn + ((1024 - (a0 & 1023)) & 1023);
  uint64_t* full = reinterpret_cast<uint64_t*>(base + kRing * kStagePad);
  uint64_t* empty = full + kRing;
  const uint32_t ring = sm90::smem_addr(base);
  for (int i = threadIdx.x; i < kRing * int(kStagePad) / 2; i += blockDim.x)
    reinterpret_cast<__half*>(base)[i] = random_half(i, 5u);
  for (int s = 0; s < kRing; ++s)  // packed bytes and scales: random codes
    for (int i = threadIdx.x; i < int(kW + kSf); i += blockDim.x)
      base[s * kStagePad + kTok + i] = i < int(kW) ? random_byte(i + s * 4096, 6u) : random_scale(i + s * 512, 7u);
  probe::init_ring(full, empty, kRing, kCopies && !kSplitProd ? 3 : 1, kWarpArrive ? 8 : kAlt ? 128 : 256);
  const size_t per_step = kW + kSf;
  const uint8_t* mine = p.weights + static_cast<size_t>(blockIdx.x) * 2 * kSteps * per_step;
  if (threadIdx.x < 128) {  // ---- producer ----
    if constexpr (kBarriers) {
      const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
      if constexpr (kSplitProd) {
        if (warp < 2) {
          for (int c = warp; c < kStages; c += 2) {
            const int s = c % kRing;
            if (c >= kRing) sm90::mbar_wait(&empty[s], ((c / kRing) - 1) & 1);
            if (lane != 0) continue;
            const uint32_t fb = sm90::smem_addr(&full[s]), st = ring + s * kStagePad;
            sm90::mbar_arrive_expect_tx(fb, kTok + kW + kSf);
            sm90::bulk_load(st, p.tokens + static_cast<size_t>(c % kSteps) * kTok, kTok, fb);
            sm90::bulk_load(st + kTok, mine + c * per_step, kW, fb);
            sm90::bulk_load(st + kTok + kW, mine + c * per_step + kW, kSf, fb);
          }
        }
      } else if (kCopies ? warp < 3 : threadIdx.x == 0) {
        for (int c = 0; c < kStages; ++c) {
          const int s = c % kRing;
          if (c >= kRing) sm90::mbar_wait(&empty[s], ((c / kRing) - 1) & 1);
          if (lane != 0) continue;
          const uint32_t fb = sm90::smem_addr(&full[s]), st = ring + s * kStagePad;
          if constexpr (!kCopies) {
            sm90::mbar_arrive(fb);
          } else if (warp == 0) {
            if constexpr (kNoTok) {
              sm90::mbar_arrive(fb);
            } else {
              sm90::mbar_arrive_expect_tx(fb, kTok);
              sm90::bulk_load(st, p.tokens + static_cast<size_t>(c % kSteps) * kTok, kTok, fb);
            }
          } else if (warp == 1) {
            sm90::mbar_arrive_expect_tx(fb, kW);
            sm90::bulk_load(st + kTok, mine + c * per_step, kW, fb);
          } else {
            sm90::mbar_arrive_expect_tx(fb, kSf);
            sm90::bulk_load(st + kTok + kW, mine + c * per_step + kW, kSf, fb);
          }
        }
      }
    }
    return;
  }
  // ---- consumers: the kernels' loop ----
  const int ct = threadIdx.x - 128, warp = ct / 32, lane = ct % 32, g = lane / 4, t = lane % 4;
  const int row = (warp / 4) * 64 + (warp % 4) * 16 + g;  // and row + 8
  long long* out = p.stamps + static_cast<size_t>(blockIdx.x) * kSlots;
  float acc[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) acc[i] = 0.0f;
  sm90::fence_regs(acc);
  uint32_t frag[2][4];
  uint32_t prev_empty = 0;
  int m = 0;
  if (ct == 0) out[kMarks] = probe::globaltimer_now();
  // A step's weights as the kernels' load_step reads them (their own StepWeights; this probe's rows
  // lie 32 bytes apart, its scales 4), decoded slice by slice by the kernels' own decode_slice.
  using Step = gemm::wg::StepWeights;
  const auto load = [&](int c) {
    const uint32_t st = ring + (c % kRing) * kStagePad;
    const uint2 w0 = sm90::lds_u32x2(st + kTok + row * 32 + t * 8), w1 = sm90::lds_u32x2(st + kTok + (row + 8) * 32 + t * 8);
    Step x;
    x.w[0][0] = fp4::e2m1x8_bytes(w0.x);
    x.w[0][1] = fp4::e2m1x8_bytes(w0.y);
    x.w[1][0] = fp4::e2m1x8_bytes(w1.x);
    x.w[1][1] = fp4::e2m1x8_bytes(w1.y);
    x.sf[0] = fp4::e4m3_to_half2_bcast(sm90::lds_u8(st + kTok + kW + row * 4 + t));
    x.sf[1] = fp4::e4m3_to_half2_bcast(sm90::lds_u8(st + kTok + kW + (row + 8) * 4 + t));
    return x;
  };
  const auto slice = [&](const Step& x, int j, uint32_t (&f)[4]) { gemm::wg::decode_slice(x, j, f); };
  // Slice j of the step in stage `st`: decoded into frag[j & 1], its wgmma issued and committed.
  const auto issue = [&](const Step& x, int j, uint32_t st) {
    slice(x, j, frag[j & 1]);
    sm90::wgmma_fence();
    sm90::wgmma_m64n128k16_rs(acc, frag[j & 1], sm90::desc_kmajor_sw128(st + 32 * j), 1);
    sm90::wgmma_commit();
  };
  const auto stamp = [&](int c) {
    if (ct == 0 && (c == 0 || (c >= 16 && (c & (c - 1)) == 0))) out[m++] = clock64();  // kMark: 0, 16, 32, 64, 128
  };
  // (P228: threads 0 and 128 first test the stage, counting the stages their warpgroup finds not full)
  int notfull = 0;
  const auto wait_full = [&](int c) {
    const uint32_t b = sm90::smem_addr(&full[c % kRing]), ph = (c / kRing) & 1;
    if ((ct & 127) == 0) {
      uint32_t d;
      asm volatile("{\n.reg .pred q;\nmbarrier.test_wait.parity.shared::cta.b64 q, [%1], %2;\nselp.u32 %0, 1, 0, q;\n}"
                   : "=r"(d) : "r"(b), "r"(ph) : "memory");
      notfull += d ? 0 : 1;
    }
    sm90::mbar_wait(b, ph);
  };
  if constexpr (kMode == 5 || kMode == 8) {
    // The kernels' form, the next step's `full` wait and weights' loads moved into this step (after
    // its last slice's wgmma is issued), so a step starts with its operands in registers.
    Step x = (wait_full(0), load(0));
    for (int c = 0; c < kSteps; ++c) {
      stamp(c);
      const uint32_t st = ring + (c % kRing) * kStagePad;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        sm90::wgmma_wait<1>();
        if (j == 1 && prev_empty != 0) {
          sm90::mbar_arrive(prev_empty);
          prev_empty = 0;
        }
        issue(x, j, st);
      }
      if (c + 1 < kSteps) {  // after slice 3's wgmma is issued (in slice 2, ptxas serialized the wgmmas, C7513)
        wait_full(c + 1);
        x = load(c + 1);
      }
      prev_empty = sm90::smem_addr(&empty[c % kRing]);
    }
  } else if constexpr (kMode == 6 || kMode == 7 || kMode == 9 || kMode == 13 || kMode == 14) {
    // calibrate's form: a step's four slices decoded first, its four wgmmas in one commit group, two
    // register sets in turn (two steps a turn); 7, 9: the next step's wait and loads before this
    // step's group is waited on.
    uint32_t fa[4][4], fb[4][4];
    const auto step = [&](int c, Step& x, uint32_t (&f)[4][4]) {
      const uint32_t st = ring + (c % kRing) * kStagePad;
#pragma unroll
      for (int j = 0; j < 4; ++j) slice(x, j, f[j]);
      sm90::wgmma_fence();
#pragma unroll
      for (int j = 0; j < 4; ++j) sm90::wgmma_m64n128k16_rs(acc, f[j], sm90::desc_kmajor_sw128(st + 32 * j), 1);
      sm90::wgmma_commit();
      if constexpr (kMode == 7 || kMode == 9) {
        if (c + 1 < kSteps) {
          wait_full(c + 1);
          x = load(c + 1);
        }
      }
      sm90::wgmma_wait<1>();
      if (prev_empty != 0) sm90::mbar_arrive(prev_empty);
      prev_empty = sm90::smem_addr(&empty[c % kRing]);
    };
    Step x{};
    if constexpr (kMode == 7 || kMode == 9) x = (wait_full(0), load(0));
    const int par = kAlt ? __shfl_sync(0xffffffffu, ct / 128, 0) : 0;
    for (int i = 0; i < kSteps; i += 2) {
      stamp(i);
      const int c = kAlt ? 2 * i + par : i, c1 = kAlt ? c + 2 : c + 1;
      if constexpr (kMode != 7 && kMode != 9) x = (wait_full(c), load(c));
      step(c, x, fa);
      if constexpr (kMode != 7 && kMode != 9) x = (wait_full(c1), load(c1));
      step(c1, x, fb);
    }
  } else {
    // (modes with stages of their own, and 15: this warpgroup's parity, through a shuffle so that it
    // stays warp-uniform)
    const int par = kAlt || kMode == 15 ? __shfl_sync(0xffffffffu, ct / 128, 0) : 0;
    for (int i = 0; i < kSteps; ++i) {  // the kernels' form (modes 0-4, 10-12, 15-16)
      const int c = kAlt ? 2 * i + par : i;
      stamp(i);
      const uint32_t st = ring + (c % kRing) * kStagePad;
      // the wgmmas' token tile (B): the stage's own but in modes 15-16
      const uint32_t stb = kMode == 15   ? ring + ((c + par) % kRing) * kStagePad
                           : kMode == 16 ? ring + ((c - par) % kRing) * kStagePad
                                         : st;
      if constexpr (kBarriers) wait_full(c);
      const Step x = load(c);
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        sm90::wgmma_wait<1>();
        if constexpr (kBarriers) {
          if (j == 1 && prev_empty != 0) {
            if constexpr (kWarpArrive) {
              // lane 0 arrives for the warp, predicated, with no __syncwarp before it (either serialized the
              // wgmmas in ptxas, C7513): a probe of the arrivals' cost only, not an ordering the kernels could use
              asm volatile("{\n.reg .pred p;\nsetp.eq.u32 p, %1, 0;\n@p mbarrier.arrive.shared::cta.b64 _, [%0];\n}" ::"r"(prev_empty),
                           "r"(lane)
                           : "memory");
            } else {
              sm90::mbar_arrive(prev_empty);
            }
            prev_empty = 0;
          }
        }
        issue(x, j, stb);
      }
      prev_empty = sm90::smem_addr(&empty[c % kRing]);
    }
  }
  sm90::wgmma_wait<0>();
  if (ct == 0) {
    out[kMarks - 1] = clock64();
    out[kMarks + 1] = probe::globaltimer_now();
  }
  if ((ct & 127) == 0) out[kMarks + 2 + ct / 128] = notfull;
  probe::sink_acc(acc, p.sink);
#else
  (void)p;
#endif
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

template <int kMode>
void run(const char* name, int grid, const Params& p, int sms) {
  const int smem = kRing * kStagePad + 2 * kRing * 8 + 1024;
  cudaFuncSetAttribute(kloop<kMode>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  std::vector<std::vector<double>> per(kMarks - 1);
  std::vector<double> mhz, nf0, nf1;
  for (int r = 0; r < 14; ++r) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    cudaMemset(p.stamps, 0, sizeof(long long) * kSlots * sms);
    kloop<kMode><<<grid, 384, smem>>>(p);
    if (cudaDeviceSynchronize() != cudaSuccess) {
      std::printf("%s: launch failed: %s\n", name, cudaGetErrorString(cudaGetLastError()));
      std::exit(1);
    }
    if (r < 2) continue;
    std::vector<long long> h(static_cast<size_t>(kSlots) * sms);
    cudaMemcpy(h.data(), p.stamps, sizeof(long long) * h.size(), cudaMemcpyDeviceToHost);
    for (int b = 0; b < grid; ++b) {
      const long long* s = h.data() + static_cast<size_t>(b) * kSlots;
      for (int w = 0; w + 1 < kMarks; ++w) per[w].push_back(double(s[w + 1] - s[w]) / (kMark[w + 1] - kMark[w]));
      mhz.push_back(double(s[kMarks - 1] - s[0]) / double(s[kMarks + 1] - s[kMarks]) * 1e3);
      nf0.push_back(double(s[kMarks + 2]));
      nf1.push_back(double(s[kMarks + 3]));
    }
  }
  std::printf("%-58s", name);
  for (auto& v : per) std::printf(" %8.0f", median(v));
  std::printf("   %.0f MHz   not full: wg0 %.0f wg1 %.0f of %d\n", median(mhz), median(nf0), median(nf1), kSteps);
}

}  // namespace

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const size_t tok_bytes = static_cast<size_t>(kSteps) * kTok, w_bytes = static_cast<size_t>(sms) * 2 * kSteps * (kW + kSf);
  uint8_t *tokens = nullptr, *weights = nullptr;
  long long* stamps = nullptr;
  float* sink = nullptr;
  cudaMalloc(&tokens, tok_bytes);
  cudaMalloc(&weights, w_bytes);
  cudaMemset(tokens, 0x3c, tok_bytes);
  cudaMemset(weights, 0x22, w_bytes);
  cudaMalloc(&stamps, sizeof(long long) * kSlots * sms);
  cudaMalloc(&sink, sizeof(float));
  const Params p{tokens, weights, stamps, sink};
  std::printf("%d SMs, a ring of %d stages; the kernels' K loop (2 x 128, m64n128k16 RS), cycles a K step over steps 0-16 / 16-32 / 32-64 / 64-128 / 128-256 (medians over CTAs and 12 launches)\n", sms, kRing);
  if (std::getenv("KLOOP_P228B") != nullptr) {  // P228b: the split producer
    for (int rep = 0; rep < 3; ++rep) {
      run<3>("3 copies by 3 role warps, shared stages, every SM", sms, p, sms);
      run<10>("10 = 3, each warpgroup on stages of its own", sms, p, sms);
      run<18>("18 = 10, a producer warp per warpgroup", sms, p, sms);
      run<18>("18 = 10, a producer warp per warpgroup, 1 CTA", 1, p, sms);
      run<15>("15 = 3, warpgroup 1 reading the next stage's token tile", sms, p, sms);
    }
    return 0;
  }
  if (std::getenv("KLOOP_P228") != nullptr) {  // P228's modes only, alternated
    for (int rep = 0; rep < 3; ++rep) {
      run<3>("3 copies by 3 role warps, shared stages, every SM", sms, p, sms);
      run<10>("10 = 3, each warpgroup on stages of its own", sms, p, sms);
      run<12>("12 = 3, no token copies", sms, p, sms);
      run<11>("11 = 10, no token copies", sms, p, sms);
      run<3>("3 copies, shared stages, 1 CTA", 1, p, sms);
      run<10>("10 = 3, each warpgroup on stages of its own, 1 CTA", 1, p, sms);
      run<11>("11 = 10, no token copies, 1 CTA", 1, p, sms);
      run<1>("1 barriers only (256 arrivals), shared stages", sms, p, sms);
      run<17>("17 = 1, each warpgroup on stages of its own", sms, p, sms);
      run<15>("15 = 3, warpgroup 1 reading the next stage's token tile", sms, p, sms);
      run<16>("16 = 10, both reading the pair's even stage's token tile", sms, p, sms);
      run<13>("13 calibrate's form (6) with the copies, shared stages", sms, p, sms);
      run<14>("14 = 13, each warpgroup on stages of its own", sms, p, sms);
    }
    return 0;
  }
  for (int rep = 0; rep < 2; ++rep) {
    run<0>("0 no barriers, every SM", sms, p, sms);
    run<1>("1 barriers only (256 arrivals), every SM", sms, p, sms);
    run<2>("2 barriers only, one arrival a warp, every SM", sms, p, sms);
    run<3>("3 copies by 3 role warps (256 arrivals), every SM", sms, p, sms);
    run<4>("4 copies by 3 role warps, one arrival a warp, every SM", sms, p, sms);
    run<0>("0 no barriers, 1 CTA", 1, p, sms);
    run<1>("1 barriers only (256 arrivals), 1 CTA", 1, p, sms);
    run<3>("3 copies by 3 role warps (256 arrivals), 1 CTA", 1, p, sms);
    run<5>("5 barriers, next step's wait + loads after slice 3", sms, p, sms);
    run<6>("6 barriers, calibrate's form (4 wgmmas a commit)", sms, p, sms);
    run<7>("7 barriers, calibrate's form + next step's wait + loads early", sms, p, sms);
    run<8>("8 = 5 with the copies (3 role warps)", sms, p, sms);
    run<9>("9 = 7 with the copies (3 role warps)", sms, p, sms);
  }
  return 0;
}
