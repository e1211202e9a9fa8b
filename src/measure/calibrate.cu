// SPDX-License-Identifier: Apache-2.0
// calibrate.cu: HBM read bandwidth, tensor-core rates and the ceilings of the GEMM-family kernels'
// decode-plus-MMA paths (wgmma; mma.sync from kernels/common/mma_ceiling.cu), measured (see
// calibrate.hpp).
#include "measure/calibrate.hpp"

#include <cublasLt.h>
#include <cuda_fp16.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/fp4_decode.cuh"
#include "core/hopper.cuh"
#include "core/mma_ceiling.hpp"
#include "core/random_operands.cuh"
#include "measure/nvml.hpp"

namespace nvfp4 {

namespace {

// fmt does not compile under nvcc here; notes are built with snprintf.
template <class... Args>
std::string format(const char* f, Args... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, args...);
  return buf;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

// Every timed launch follows kPaceMs of idle. Back to back, these launches of several
// milliseconds of full tensor-core or memory load hold the board at its power cap: on an H200 the
// decode+wgmma loop's launches slowed by ~11 % after ~30 ms (SM clock 1665-1785 MHz instead of
// 1980, NVML reason SwPowerCap), so a median of back-to-back launches mixed two clocks (830-904
// TFLOP/s from run to run), while the benchmarks' kernels, tens of microseconds between L2
// flushes, never reach the cap. With 200 ms of idle before each launch every one ran at 1980 MHz
// (docs/perf-notes.md P190); NVML's clock-event reasons, read after each timed launch, say whether
// that held here.
constexpr int kPaceMs = 100;

struct Timed {
  std::vector<double> ms;  // the timed launches, in order
  int sampled = 0;         // launches after which NVML answered
  int throttled = 0;       // ... with a reason that lowers clocks under load (is_throttled)
  // ", each after 100 ms idle; 0 of 10 launches throttled (NVML)" for a rate's note.
  std::string pace() const {
    std::string t = format(", each launch after %d ms idle; ", kPaceMs);
    if (sampled == 0) return t + "throttling not read (NVML unavailable)";
    return t + format("%d of %d launches throttled (NVML clock-event reasons)", throttled, sampled);
  }
};

// One thread spinning for `ns` nanoseconds of the GPU's global timer: holds the stream while the
// host enqueues the start event, the timed launch and the stop event behind it, so that the host's
// wake-up and launch latency after the idle falls outside the events (on an H200 ~31 us per HBM
// read launch and ~0.1 ms per cuBLASLt call: those rates read 6-7 % low without it, P191).
constexpr uint64_t kHoldNs = 200000;
__global__ void hold_kernel(uint64_t ns) {
  uint64_t t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

// `warmup` launches, then `runs` timed ones (CUDA events on `s`), each after kPaceMs of idle and
// behind a hold_kernel.
template <class Launch>
Timed timed_launches(int device, int warmup, int runs, Launch&& launch, cudaStream_t s) {
  Event start, stop;
  Timed t;
  Nvml& nvml = Nvml::instance();
  for (int r = 0; r < warmup + runs; ++r) {
    if (r >= warmup) {
      CUDA_CHECK(cudaStreamSynchronize(s));
      std::this_thread::sleep_for(std::chrono::milliseconds(kPaceMs));
    }
    hold_kernel<<<1, 1, 0, s>>>(kHoldNs);
    CUDA_CHECK_LAUNCH();
    start.record(s);
    launch();
    stop.record(s);
    CUDA_CHECK(cudaEventSynchronize(stop.get()));
    if (r < warmup) continue;
    t.ms.push_back(stop.since(start));
    if (const std::optional<ClockSample> c = nvml.sample(device)) {
      ++t.sampled;
      if (is_throttled(c->throttle_reasons)) ++t.throttled;
    }
  }
  return t;
}

#define CAL_CUBLAS_CHECK(expr)                                                                      \
  do {                                                                                              \
    const cublasStatus_t nvfp4_cal_st_ = (expr);                                                    \
    if (nvfp4_cal_st_ != CUBLAS_STATUS_SUCCESS)                                                     \
      ::nvfp4::throw_library_error(std::string("cuBLASLt: ") + cublasLtGetStatusName(nvfp4_cal_st_), #expr, \
                                   __FILE__, __LINE__);                                              \
  } while (false)

//==================================================================================================
// HBM read bandwidth
//==================================================================================================

constexpr int kReadThreads = 256;
constexpr int kReadWarmup = 2;
constexpr int kReadRuns = 10;

// Every 16-byte word is loaded once; the XOR of all words decides a store that never happens in
// practice, so the loads cannot be removed.
__global__ void __launch_bounds__(kReadThreads) read_kernel(const uint4* __restrict__ p, size_t n, uint32_t* sink) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  uint32_t acc = 0;
  for (; i + 3 * stride < n; i += 4 * stride) {  // four independent loads in flight per thread
    const uint4 a = __ldcs(p + i);
    const uint4 b = __ldcs(p + i + stride);
    const uint4 c = __ldcs(p + i + 2 * stride);
    const uint4 d = __ldcs(p + i + 3 * stride);
    acc ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^ d.w;
  }
  for (; i < n; i += stride) {
    const uint4 a = __ldcs(p + i);
    acc ^= a.x ^ a.y ^ a.z ^ a.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;
}

double measure_hbm_read(const DeviceInfo& dev, cudaStream_t s, std::string& note) {
  size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  size_t bytes = std::min<size_t>({size_t{2} << 30, total_bytes / 4, free_bytes / 2});
  bytes &= ~size_t{0xFFFFF};  // whole MiB
  if (bytes < (size_t{64} << 20)) throw std::runtime_error("calibrate: less than 64 MiB of device memory available for the read test");

  DeviceBuffer buf(bytes);
  DeviceBuffer sink(sizeof(uint32_t));
  CUDA_CHECK(cudaMemsetAsync(buf.get(), 0x5a, bytes, s));

  int blocks_per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, read_kernel, kReadThreads, 0));
  const int grid = std::max(1, blocks_per_sm) * std::max(1, dev.sms);
  const size_t words = bytes / sizeof(uint4);

  const Timed t = timed_launches(dev.index, kReadWarmup, kReadRuns, [&] {
    read_kernel<<<grid, kReadThreads, 0, s>>>(buf.get<const uint4>(), words, sink.get<uint32_t>());
    CUDA_CHECK_LAUNCH();
  }, s);
  const double best_ms = *std::min_element(t.ms.begin(), t.ms.end());
  note = format("hbm: read of %zu MiB, 16-byte loads, grid %dx%d, best of %d", bytes >> 20, grid, kReadThreads,
                kReadRuns) + t.pace();
  return double(bytes) / (best_ms * 1e-3) / 1e9;
}

//==================================================================================================
// Tensor-core GEMM rates through cuBLASLt
//==================================================================================================

constexpr int kGemmWarmup = 3;
constexpr int kGemmRuns = 10;
constexpr size_t kWorkspaceBytes = size_t{32} << 20;

__global__ void fill_half(__half* p, size_t n, uint32_t seed) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = random_half(i, seed);
}

__global__ void fill_bytes(uint8_t* p, size_t n, uint32_t seed) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = random_byte(i, seed);
}

struct LtHandle {
  cublasLtHandle_t h = nullptr;
  LtHandle() { CAL_CUBLAS_CHECK(cublasLtCreate(&h)); }
  ~LtHandle() { cublasLtDestroy(h); }
  LtHandle(const LtHandle&) = delete;
  LtHandle& operator=(const LtHandle&) = delete;
};
struct LtDesc {
  cublasLtMatmulDesc_t d = nullptr;
  LtDesc(cublasComputeType_t c, cudaDataType_t scale) { CAL_CUBLAS_CHECK(cublasLtMatmulDescCreate(&d, c, scale)); }
  ~LtDesc() { cublasLtMatmulDescDestroy(d); }
  template <class T>
  void set(cublasLtMatmulDescAttributes_t a, const T& v) {
    CAL_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(d, a, &v, sizeof v));
  }
  LtDesc(const LtDesc&) = delete;
  LtDesc& operator=(const LtDesc&) = delete;
};
struct LtLayout {
  cublasLtMatrixLayout_t l = nullptr;
  LtLayout(cudaDataType_t t, uint64_t rows, uint64_t cols, int64_t ld) {
    CAL_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&l, t, rows, cols, ld));
  }
  ~LtLayout() { cublasLtMatrixLayoutDestroy(l); }
  LtLayout(const LtLayout&) = delete;
  LtLayout& operator=(const LtLayout&) = delete;
};
struct LtPref {
  cublasLtMatmulPreference_t p = nullptr;
  LtPref() {
    CAL_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&p));
    const size_t ws = kWorkspaceBytes;
    CAL_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
  }
  ~LtPref() { cublasLtMatmulPreferenceDestroy(p); }
  LtPref(const LtPref&) = delete;
  LtPref& operator=(const LtPref&) = delete;
};

// D = A^T * B (column-major, TN: A stored K x M, B stored K x N, D M x N), timed: kGemmRuns paced
// calls (timed_launches).
Timed time_gemm(int device, cublasLtHandle_t lt, LtDesc& desc, const LtLayout& la, const LtLayout& lb,
                const LtLayout& ld, const void* a, const void* b, void* d, cudaStream_t s) {
  LtPref pref;
  cublasLtMatmulHeuristicResult_t heur{};
  int found = 0;
  CAL_CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(lt, desc.d, la.l, lb.l, ld.l, ld.l, pref.p, 1, &heur, &found));
  if (found == 0) {
    throw_library_error("cuBLASLt: no algorithm (CUBLAS_STATUS_NOT_SUPPORTED)", "cublasLtMatmulAlgoGetHeuristic",
                        __FILE__, __LINE__);
  }
  DeviceBuffer ws(kWorkspaceBytes);
  const float alpha = 1.0f, beta = 0.0f;
  return timed_launches(device, kGemmWarmup, kGemmRuns, [&] {
    CAL_CUBLAS_CHECK(cublasLtMatmul(lt, desc.d, &alpha, a, la.l, b, lb.l, &beta, d, ld.l, d, ld.l, &heur.algo,
                                    ws.get(), kWorkspaceBytes, s));
  }, s);
}

double measure_fp16(int device, cublasLtHandle_t lt, cudaStream_t s, std::string& note) {
  constexpr int64_t n = 8192;
  const size_t elems = size_t(n) * n;
  DeviceBuffer a(elems * sizeof(__half)), b(elems * sizeof(__half)), d(elems * sizeof(__half));
  fill_half<<<1024, 256, 0, s>>>(a.get<__half>(), elems, 1u);
  CUDA_CHECK_LAUNCH();
  fill_half<<<1024, 256, 0, s>>>(b.get<__half>(), elems, 2u);
  CUDA_CHECK_LAUNCH();

  LtDesc desc(CUBLAS_COMPUTE_32F, CUDA_R_32F);
  desc.set(CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_T);
  desc.set(CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
  LtLayout la(CUDA_R_16F, n, n, n), lb(CUDA_R_16F, n, n, n), ld(CUDA_R_16F, n, n, n);
  const Timed t = time_gemm(device, lt, desc, la, lb, ld, a.get(), b.get(), d.get(), s);
  const double ms = median(t.ms);
  note = format("fp16: cuBLASLt %lldx%lldx%lld TN, f16 in/out, f32 compute, median of %d", (long long)n, (long long)n,
                (long long)n, kGemmRuns) + t.pace();
  return 2.0 * double(n) * double(n) * double(n) / (ms * 1e-3) / 1e12;
}

// Bytes of a UE4M3 scale tensor for a rows x k operand in the cuBLAS 128x4 tiled layout.
size_t scale_bytes(int64_t rows, int64_t k) {
  const int64_t rows_pad = (rows + 127) / 128 * 128;
  const int64_t kb_pad = (k / 16 + 3) / 4 * 4;
  return size_t(rows_pad * kb_pad);
}

double measure_fp4(int device, cublasLtHandle_t lt, cudaStream_t s, std::string& note) {
  constexpr int64_t n = 16384;
  const size_t packed = size_t(n) * n / 2;  // two E2M1 per byte
  DeviceBuffer a(packed), b(packed), d(size_t(n) * n * 2);  // D: BF16
  DeviceBuffer sfa(scale_bytes(n, n)), sfb(scale_bytes(n, n));
  fill_bytes<<<1024, 256, 0, s>>>(a.get<uint8_t>(), packed, 3u);
  CUDA_CHECK_LAUNCH();
  fill_bytes<<<1024, 256, 0, s>>>(b.get<uint8_t>(), packed, 4u);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaMemsetAsync(sfa.get(), 0x38, sfa.bytes(), s));  // UE4M3 0x38 = 1.0
  CUDA_CHECK(cudaMemsetAsync(sfb.get(), 0x38, sfb.bytes(), s));

  // NVFP4 requires TN; scale pointers and modes per operand (CUDALibrarySamples LtNvfp4Matmul order).
  LtDesc desc(CUBLAS_COMPUTE_32F, CUDA_R_32F);
  desc.set(CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_T);
  desc.set(CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
  const cublasLtMatmulMatrixScale_t vec16 = CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3;
  desc.set(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, vec16);
  desc.set(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, vec16);
  const void* sfa_ptr = sfa.get();
  const void* sfb_ptr = sfb.get();
  desc.set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, sfa_ptr);
  desc.set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, sfb_ptr);
  LtLayout la(CUDA_R_4F_E2M1, n, n, n), lb(CUDA_R_4F_E2M1, n, n, n), ld(CUDA_R_16BF, n, n, n);
  const Timed t = time_gemm(device, lt, desc, la, lb, ld, a.get(), b.get(), d.get(), s);
  const double ms = median(t.ms);
  note = format("fp4: cuBLASLt NVFP4 %lldx%lldx%lld TN, bf16 out, f32 compute, median of %d", (long long)n,
                (long long)n, (long long)n, kGemmRuns) + t.pace();
  return 2.0 * double(n) * double(n) * double(n) / (ms * 1e-3) / 1e12;
}

//==================================================================================================
// The ceiling of the Hopper wgmma kernels' own path: FP4 decode in registers feeding wgmma
//==================================================================================================
// The consumer side of the wgmma kernels, without their loads: a CTA of two consumer warpgroups,
// each owning 64 weight rows x 128 tokens (64 FP32 accumulators per thread). Per K64 chunk each
// thread reads the packed e2m1 bytes and e4m3 scales of its two rows (rows g and g + 8 of its
// warp's 16) from shared memory, decodes them in registers (core/fp4_decode.cuh) and issues 4
// wgmma m64n128k16 with A from those registers and B (the tokens: K-major, 128-byte swizzle) from
// shared memory. The operands are written to shared memory once, so the timed loop has no
// global-memory traffic: its rate is the most that path can reach. The same loop with fixed A
// registers (no decode) shows what the decode costs.

constexpr int kCeilThreads = 256;   // 2 consumer warpgroups
constexpr int kCeilChunks = 16384;  // K64 chunks per CTA and launch (even): ~7 ms at 650 TFLOP/s on 132 SMs
constexpr int kCeilWarmup = 2;
constexpr int kCeilRuns = 10;
constexpr double kCeilFlopPerChunk = 2.0 * 128 * 128 * 64;  // per CTA: 128 weight rows x 128 tokens x K64

// One K64 chunk of the CTA's operands: the token tile (B: 128 rows of 64 FP16), the packed
// weights (128 rows x 32 bytes) and their scales (128 rows x 4).
struct alignas(1024) CeilingSmem {
  __half tokens[128 * 64];
  uint8_t packed[128 * 32];
  uint8_t scales[128 * 4];
};

// The device functions of this kernel are [[maybe_unused]]: off sm_90a its body is compiled out.

// The dynamic shared memory, from its first 1024-byte boundary: the 128-byte swizzle of the
// token tile's descriptor repeats every 1024 bytes.
[[maybe_unused]] __device__ __forceinline__ CeilingSmem& ceiling_smem() {
  extern __shared__ uint8_t ceiling_dyn_smem[];
  const uint32_t a = sm90::smem_addr(ceiling_dyn_smem);
  return *reinterpret_cast<CeilingSmem*>(ceiling_dyn_smem + ((1024 - (a & 1023)) & 1023));
}

// Random non-zero operands (core/random_operands.cuh).
[[maybe_unused]] __device__ void fill_ceiling_smem(CeilingSmem& sm) {
  for (int i = threadIdx.x; i < 128 * 64; i += blockDim.x) sm.tokens[i] = random_half(i, 5u);
  for (int i = threadIdx.x; i < 128 * 32; i += blockDim.x) sm.packed[i] = random_byte(i, 6u);
  for (int i = threadIdx.x; i < 128 * 4; i += blockDim.x) sm.scales[i] = random_scale(i, 7u);
}

// The A registers of one K64 chunk: rows `row` and `row + 8` (h[0], h[1]), 16 elements each (the
// thread's quarter `q` of the chunk's 64: 8 packed bytes, one scale), as 8 half2 of
// value * scale * 2^-14.
[[maybe_unused]] __device__ __forceinline__ void decode_chunk(const CeilingSmem& sm, int row, int q,
                                                              uint32_t (&h)[2][8]) {
#pragma unroll
  for (int hr = 0; hr < 2; ++hr) {
    const int r = row + 8 * hr;
    const uint2 packed = *reinterpret_cast<const uint2*>(sm.packed + r * 32 + 8 * q);
    fp4::decode_block16_raw(packed, fp4::e4m3_to_half2_bcast(sm.scales[r * 4 + q]), h[hr]);
  }
}

// One chunk's 4 wgmmas (K16 step j: B slice j, A = half2 2j and 2j+1 of both rows), committed as
// one group.
[[maybe_unused]] __device__ __forceinline__ void mma_chunk(float (&acc)[64], const uint32_t (&h)[2][8],
                                                           const uint64_t (&desc)[4]) {
  sm90::wgmma_fence();  // the A registers were written since the last wgmma
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const uint32_t a[4] = {h[0][2 * j], h[1][2 * j], h[0][2 * j + 1], h[1][2 * j + 1]};
    sm90::wgmma_m64n128k16_rs(acc, a, desc[j], 1);
  }
  sm90::wgmma_commit();
}

// kDecode: decode every chunk (the kernels' path); else the A registers are decoded once and
// only the wgmmas run. The A registers of a chunk stay live until its wgmmas are done: two sets
// (ha, hb), and wgmma_wait<1> after each commit frees the other set, so the decode of chunk c+1
// overlaps the wgmmas of chunk c.
template <bool kDecode>
__global__ void __launch_bounds__(kCeilThreads, 1) wgmma_ceiling_kernel(int chunks, float* sink) {
#if NVFP4_SM90A
  CeilingSmem& sm = ceiling_smem();
  fill_ceiling_smem(sm);
  sm90::fence_proxy_async_smem();
  __syncthreads();

  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int row = (warp / 4) * 64 + (warp % 4) * 16 + lane / 4;  // warpgroup, warp in it, lane group
  const int t = lane % 4;
  uint64_t desc[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) desc[j] = sm90::desc_kmajor_sw128(sm90::smem_addr(sm.tokens) + 32 * j);
  float acc[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) acc[i] = 0.0f;
  uint32_t ha[2][8], hb[2][8];
  if constexpr (!kDecode) {
    decode_chunk(sm, row, t, ha);
    decode_chunk(sm, row, (t + 1) % 4, hb);
  }
  sm90::fence_regs(acc);
  for (int c = 0; c < chunks; c += 2) {
    // The quarter a thread reads turns with the chunk, as a ring of stages moves the kernels'
    // reads, so the decode stays inside the loop.
    if constexpr (kDecode) decode_chunk(sm, row, (t + c) % 4, ha);
    mma_chunk(acc, ha, desc);
    sm90::wgmma_wait<1>();  // chunk c - 1 is done: hb is free
    if constexpr (kDecode) decode_chunk(sm, row, (t + c + 1) % 4, hb);
    mma_chunk(acc, hb, desc);
    sm90::wgmma_wait<1>();  // chunk c is done: ha is free
  }
  sm90::wgmma_wait<0>();
  sm90::fence_regs(acc);
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < 64; ++i) sum += acc[i];
  if (__float_as_uint(sum) == 0xFFFFFFFFu) *sink = sum;  // never: arithmetic makes only the canonical NaN
#else
  (void)chunks;
  (void)sink;
  __trap();
#endif
}

// wgmma_ceiling_kernel<kDecode> in TFLOP/s: median of kCeilRuns paced launches (timed_launches),
// CUDA events; `pace` gets Timed::pace() for the note.
template <bool kDecode>
double time_wgmma_ceiling(const DeviceInfo& dev, cudaStream_t s, std::string& pace) {
  auto* kernel = wgmma_ceiling_kernel<kDecode>;
  // More than half an SM's shared memory, so that one CTA runs per SM, as in the kernels (whose
  // stage rings fill it).
  int smem_per_sm = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev.index));
  const int smem = std::max<int>(sizeof(CeilingSmem) + 1024, smem_per_sm / 2 + 1024);
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kCeilThreads, smem));
  if (per_sm != 1) throw std::runtime_error(format("%d CTAs of %d threads fit on an SM, not 1", per_sm, kCeilThreads));

  DeviceBuffer sink(sizeof(float));
  const Timed t = timed_launches(dev.index, kCeilWarmup, kCeilRuns, [&] {
    kernel<<<dev.sms, kCeilThreads, smem, s>>>(kCeilChunks, sink.get<float>());
    CUDA_CHECK_LAUNCH();
  }, s);
  pace = t.pace();
  return kCeilFlopPerChunk * kCeilChunks * dev.sms / (median(t.ms) * 1e-3) / 1e12;
}

// Runs `measure` (it returns the rate and sets its note). A failure that leaves the context usable
// becomes the note "<what>: not measured (<why>)" and nullopt.
template <class F>
std::optional<double> optional_rate(const char* what, std::vector<std::string>& notes, F&& measure) {
  std::string note;
  try {
    const double rate = measure(note);
    notes.push_back(note);
    return rate;
  } catch (const CudaError& e) {
    if (e.sticky()) throw;  // the context is gone: nothing else can run
    (void)cudaGetLastError();  // a failed launch or attribute call must not surface in a later check
    notes.push_back(std::string(what) + ": not measured (" + e.what() + ")");
  } catch (const std::exception& e) {
    notes.push_back(std::string(what) + ": not measured (" + e.what() + ")");
  }
  return std::nullopt;
}

// Both rates of the wgmma path, on CC 9.0 only (wgmma is sm_90a machine code).
void measure_wgmma_ceilings(const DeviceInfo& dev, cudaStream_t s, Calibration& cal, std::vector<std::string>& notes) {
  if (dev.cc_major != 9 || dev.cc_minor != 0) {
    notes.push_back(format("decode+wgmma, wgmma rs: not measured (wgmma needs sm_90a; this GPU is %d.%d)",
                           dev.cc_major, dev.cc_minor));
    return;
  }
  const std::string how = format(", grid %dx%d (1 CTA per SM, 2 warpgroups of 64x128 FP32 accumulators), %d K64 chunks "
                                 "per CTA, operands in shared memory only, median of %d",
                                 dev.sms, kCeilThreads, kCeilChunks, kCeilRuns);
  cal.decode_wgmma_tflops = optional_rate("decode+wgmma", notes, [&](std::string& note) {
    std::string pace;
    const double r = time_wgmma_ceiling<true>(dev, s, pace);
    note = "decode+wgmma: e2m1 x e4m3 decode in registers feeding wgmma m64n128k16 (A from registers, f16 in, "
           "f32 accumulate)" + how + pace;
    return r;
  });
  cal.wgmma_rs_tflops = optional_rate("wgmma rs", notes, [&](std::string& note) {
    std::string pace;
    const double r = time_wgmma_ceiling<false>(dev, s, pace);
    note = "wgmma rs: the same loop with fixed A registers (no decode)" + how + pace;
    return r;
  });
}

// Both rates of the `tensor-core` path (mma_ceiling_launch), on CC 8.0 and newer. kMmaCeilSteps K
// steps per CTA: ~5 ms at 400 TFLOP/s on 132 SMs.
constexpr int kMmaCeilSteps = 4096;
double time_mma_ceiling(const DeviceInfo& dev, cudaStream_t s, bool decode, std::string& how) {
  const MmaCeilingLaunch l = mma_ceiling_launch(decode);
  if (l.ctas_per_sm < 1) throw std::runtime_error("its CTA does not fit on an SM");
  const int ctas = l.ctas_per_sm * dev.sms;
  DeviceBuffer sink(sizeof(float));
  const Timed t = timed_launches(dev.index, kCeilWarmup, kCeilRuns,
                                 [&] { l.launch(ctas, kMmaCeilSteps, sink.get<float>(), s); }, s);
  how = format(", grid %dx%d (%d CTAs per SM, 4 warps of 32x128 FP32 accumulators), %d K64 steps per CTA, "
               "operands in shared memory only, no barriers, median of %d",
               ctas, l.threads, l.ctas_per_sm, kMmaCeilSteps, kCeilRuns) + t.pace();
  return l.flop_per_step * kMmaCeilSteps * ctas / (median(t.ms) * 1e-3) / 1e12;
}

void measure_mma_ceilings(const DeviceInfo& dev, cudaStream_t s, Calibration& cal, std::vector<std::string>& notes) {
  if (dev.cc_major < 8) {
    notes.push_back(format("decode+mma.sync, mma.sync: not measured (the tensor-core kernels need CC 8.0; this GPU is "
                           "%d.%d)", dev.cc_major, dev.cc_minor));
    return;
  }
  cal.decode_mma_tflops = optional_rate("decode+mma.sync", notes, [&](std::string& note) {
    std::string how;
    const double r = time_mma_ceiling(dev, s, true, how);
    note = "decode+mma.sync: the tensor-core main loop's e2m1 x e4m3 decode into A fragments, ldmatrix of the "
           "tokens and mma.sync m16n8k16 (f16 in, f32 accumulate)" + how;
    return r;
  });
  cal.mma_sync_tflops = optional_rate("mma.sync", notes, [&](std::string& note) {
    std::string how;
    const double r = time_mma_ceiling(dev, s, false, how);
    note = "mma.sync: the same loop with the A fragments decoded once" + how;
    return r;
  });
}

}  // namespace

Calibration calibrate(const DeviceInfo& dev, cudaStream_t s) {
  Calibration cal;
  std::vector<std::string> notes;
  std::string note;

  cal.hbm_read_gbps = measure_hbm_read(dev, s, note);
  notes.push_back(note);

  LtHandle lt;
  cal.fp16_tensor_tflops = measure_fp16(dev.index, lt.h, s, note);
  notes.push_back(note);

  if (dev.cc_major == 10) {
    cal.fp4_tensor_tflops = optional_rate("fp4", notes, [&](std::string& n) { return measure_fp4(dev.index, lt.h, s, n); });
  } else {
    notes.push_back(format("fp4: not measured (cuBLASLt NVFP4 needs CC 10.x; this GPU is %d.%d)", dev.cc_major,
                           dev.cc_minor));
  }
  measure_wgmma_ceilings(dev, s, cal, notes);
  measure_mma_ceilings(dev, s, cal, notes);

  for (size_t i = 0; i < notes.size(); ++i) cal.notes += (i ? "; " : "") + notes[i];
  return cal;
}

}  // namespace nvfp4
