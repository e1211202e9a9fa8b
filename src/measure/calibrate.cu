// SPDX-License-Identifier: Apache-2.0
// calibrate.cu: HBM read bandwidth and tensor-core rates, measured (see calibrate.hpp).
#include "measure/calibrate.hpp"

#include <cublasLt.h>
#include <cuda_fp16.h>
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"

namespace nvfp4 {

namespace {

// fmt does not compile under nvcc here; notes are built with snprintf.
template <class... Args>
std::string format(const char* f, Args... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, args...);
  return buf;
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

  Event start, stop;
  double best_ms = 1e30;
  for (int r = 0; r < kReadWarmup + kReadRuns; ++r) {
    start.record(s);
    read_kernel<<<grid, kReadThreads, 0, s>>>(buf.get<const uint4>(), words, sink.get<uint32_t>());
    CUDA_CHECK_LAUNCH();
    stop.record(s);
    CUDA_CHECK(cudaEventSynchronize(stop.get()));
    if (r >= kReadWarmup) best_ms = std::min(best_ms, double(stop.since(start)));
  }
  note = format("hbm: read of %zu MiB, 16-byte loads, grid %dx%d, best of %d", bytes >> 20, grid, kReadThreads,
                kReadRuns);
  return double(bytes) / (best_ms * 1e-3) / 1e9;
}

//==================================================================================================
// Tensor-core GEMM rates through cuBLASLt
//==================================================================================================

constexpr int kGemmWarmup = 3;
constexpr int kGemmRuns = 10;
constexpr size_t kWorkspaceBytes = size_t{32} << 20;

// Random FP16 in +-[1/64, 1): no zeros, so the tensor cores (and the power draw) do real work.
__global__ void fill_half(__half* p, size_t n, uint32_t seed) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint32_t h = uint32_t(i) * 0x9e3779b1u ^ uint32_t(i >> 32) * 0x85ebca77u ^ seed;
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    h *= 0x297a2d39u;
    h ^= h >> 15;
    const float mag = 1.0f / 64 + float(h & 0xffff) * (1.0f - 1.0f / 64) / 65536.0f;
    p[i] = __float2half((h & 0x10000u) ? -mag : mag);
  }
}

// Random bytes (any byte is two finite E2M1 values).
__global__ void fill_bytes(uint8_t* p, size_t n, uint32_t seed) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint32_t h = uint32_t(i) * 0x9e3779b1u ^ seed;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    p[i] = uint8_t(h);
  }
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

// D = A^T * B (column-major, TN: A stored K x M, B stored K x N, D M x N), timed; returns the
// median milliseconds of kGemmRuns calls.
double time_gemm(cublasLtHandle_t lt, LtDesc& desc, const LtLayout& la, const LtLayout& lb, const LtLayout& ld,
                 const void* a, const void* b, void* d, cudaStream_t s) {
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
  Event start, stop;
  std::vector<double> ms;
  for (int r = 0; r < kGemmWarmup + kGemmRuns; ++r) {
    start.record(s);
    CAL_CUBLAS_CHECK(cublasLtMatmul(lt, desc.d, &alpha, a, la.l, b, lb.l, &beta, d, ld.l, d, ld.l, &heur.algo,
                                    ws.get(), kWorkspaceBytes, s));
    stop.record(s);
    CUDA_CHECK(cudaEventSynchronize(stop.get()));
    if (r >= kGemmWarmup) ms.push_back(stop.since(start));
  }
  std::sort(ms.begin(), ms.end());
  const size_t h = ms.size() / 2;
  return ms.size() % 2 ? ms[h] : 0.5 * (ms[h - 1] + ms[h]);
}

double measure_fp16(cublasLtHandle_t lt, cudaStream_t s, std::string& note) {
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
  const double ms = time_gemm(lt, desc, la, lb, ld, a.get(), b.get(), d.get(), s);
  note = format("fp16: cuBLASLt %lldx%lldx%lld TN, f16 in/out, f32 compute, median of %d", (long long)n, (long long)n,
                (long long)n, kGemmRuns);
  return 2.0 * double(n) * double(n) * double(n) / (ms * 1e-3) / 1e12;
}

// Bytes of a UE4M3 scale tensor for a rows x k operand in the cuBLAS 128x4 tiled layout.
size_t scale_bytes(int64_t rows, int64_t k) {
  const int64_t rows_pad = (rows + 127) / 128 * 128;
  const int64_t kb_pad = (k / 16 + 3) / 4 * 4;
  return size_t(rows_pad * kb_pad);
}

double measure_fp4(cublasLtHandle_t lt, cudaStream_t s, std::string& note) {
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
  const double ms = time_gemm(lt, desc, la, lb, ld, a.get(), b.get(), d.get(), s);
  note = format("fp4: cuBLASLt NVFP4 %lldx%lldx%lld TN, bf16 out, f32 compute, median of %d", (long long)n,
                (long long)n, (long long)n, kGemmRuns);
  return 2.0 * double(n) * double(n) * double(n) / (ms * 1e-3) / 1e12;
}

}  // namespace

Calibration calibrate(const DeviceInfo& dev, cudaStream_t s) {
  Calibration cal;
  std::vector<std::string> notes;
  std::string note;

  cal.hbm_read_gbps = measure_hbm_read(dev, s, note);
  notes.push_back(note);

  LtHandle lt;
  cal.fp16_tensor_tflops = measure_fp16(lt.h, s, note);
  notes.push_back(note);

  if (dev.cc_major == 10) {
    try {
      cal.fp4_tensor_tflops = measure_fp4(lt.h, s, note);
      notes.push_back(note);
    } catch (const CudaError& e) {
      if (e.sticky()) throw;  // the context is gone: nothing else can run
      notes.push_back(std::string("fp4: not measured (") + e.what() + ")");
    } catch (const std::exception& e) {
      notes.push_back(std::string("fp4: not measured (") + e.what() + ")");
    }
  } else {
    notes.push_back(format("fp4: not measured (cuBLASLt NVFP4 needs CC 10.x; this GPU is %d.%d)", dev.cc_major,
                           dev.cc_minor));
  }

  for (size_t i = 0; i < notes.size(); ++i) cal.notes += (i ? "; " : "") + notes[i];
  return cal;
}

}  // namespace nvfp4
