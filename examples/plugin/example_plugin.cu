// SPDX-License-Identifier: Apache-2.0
// example_plugin.cu: a plugin for `nvfp4bench --plugin`, written against nvfp4bench_plugin.h alone.
// One thread per output element; it decodes e2m1 and e4m3 itself. Variants:
//   example:rowmajor   all four problems, with the row-major scales (gemv: N = 1; dual_gemm:
//                      silu(x1) * x2 in FP32, one rounding)
//   example:blocked    gemm, with gpu-mode's blocked scales
// Build: nvcc -O2 -arch=sm_90a -shared -Xcompiler -fPIC -I<nvfp4bench>/src/core example_plugin.cu -o example.so
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <vector>

#include "nvfp4bench_plugin.h"

namespace {

__device__ float e2m1(unsigned v) {  // 4 bits: sign, 2 exponent, 1 mantissa
  const float mag[8] = {0.f, 0.5f, 1.f, 1.5f, 2.f, 3.f, 4.f, 6.f};
  return (v & 8) ? -mag[v & 7] : mag[v & 7];
}

__device__ float e4m3(unsigned v) {  // 8 bits: sign, 4 exponent (bias 7), 3 mantissa
  const int e = (v >> 3) & 15, m = v & 7;
  const float mag = e == 0 ? ldexpf(float(m), -9) : ldexpf(float(8 + m), e - 10);
  return (v & 0x80) ? -mag : mag;
}

__device__ float element(const nvfp4bench_operand& x, int64_t b, int64_t row, int64_t k) {
  const uint8_t byte = x.data[b * x.data_stride_l + row * x.data_stride_row + k / 2];
  return e2m1((k & 1) ? byte >> 4 : byte & 15);
}

__device__ float scale(const nvfp4bench_operand& x, int64_t b, int64_t i, int64_t j, bool blocked) {
  if (!blocked) return e4m3(x.sf[b * x.sf_stride_l + i * x.sf_stride_row + j]);
  const int64_t rest_k = (x.k / 16 + 3) / 4;
  return e4m3(x.sf_blocked[b * x.sf_blocked_stride_l + (i / 128) * rest_k * 512 + (j / 4) * 512 + (i % 32) * 16 +
                           ((i % 128) / 32) * 4 + j % 4]);
}

// sum over 16-element blocks of (block dot product of A row m and W row n) * scale_a * scale_w.
__device__ float dot(const nvfp4bench_group& g, const nvfp4bench_operand& w, int64_t b, int64_t m, int64_t n,
                     bool blocked) {
  float acc = 0.f;
  for (int64_t j = 0; j < g.dims.k / 16; ++j) {
    float block = 0.f;
    for (int64_t k = 16 * j; k < 16 * j + 16; ++k) block += element(g.a, b, m, k) * element(w, b, n, k);
    acc += block * scale(g.a, b, m, j, blocked) * scale(w, b, n, j, blocked);
  }
  return acc;
}

// c[b][m][n] = A.B^T, or silu(A.B1^T) * (A.B2^T) for dual_gemm.
__global__ void gemm(nvfp4bench_group g, bool blocked, bool dual) {
  const int64_t n = blockIdx.x * int64_t(blockDim.x) + threadIdx.x, m = blockIdx.y, b = blockIdx.z;
  if (n >= g.dims.n) return;
  float out = dot(g, g.b, b, m, n, blocked);
  if (dual) out = out / (1.f + expf(-out)) * dot(g, g.b2, b, m, n, blocked);
  static_cast<__half*>(g.c)[b * g.c_stride_l + m * g.c_stride_row + n] = __float2half(out);
}

struct Handle {
  std::vector<nvfp4bench_group> groups;
  bool blocked, dual;
};

const char* unsupported(const nvfp4bench_dims* groups, int32_t count, int32_t, int32_t) {
  for (int32_t i = 0; i < count; ++i)
    if (groups[i].m > 65535 || groups[i].l > 65535) return "example plugin: M and L must be <= 65535 (grid y/z)";
  return nullptr;
}

int32_t prepare(const nvfp4bench_case* c, bool blocked, bool dual, void** handle) {
  *handle = new Handle{std::vector<nvfp4bench_group>(c->groups, c->groups + c->group_count), blocked, dual};
  return 0;
}
int32_t prepare_rowmajor(const nvfp4bench_case* c, nvfp4bench_stream, void** h) { return prepare(c, false, false, h); }
int32_t prepare_blocked(const nvfp4bench_case* c, nvfp4bench_stream, void** h) { return prepare(c, true, false, h); }
int32_t prepare_dual(const nvfp4bench_case* c, nvfp4bench_stream, void** h) { return prepare(c, false, true, h); }

int32_t run(void* handle, nvfp4bench_stream stream) {
  const Handle& h = *static_cast<Handle*>(handle);
  for (const nvfp4bench_group& g : h.groups) {
    const dim3 grid(unsigned((g.dims.n + 127) / 128), unsigned(g.dims.m), unsigned(g.dims.l));
    gemm<<<grid, 128, 0, stream>>>(g, h.blocked, h.dual);
  }
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

void destroy(void* handle) { delete static_cast<Handle*>(handle); }

const nvfp4bench_variant kVariants[] = {
    {"rowmajor", NVFP4BENCH_GEMM, "example plugin: one thread per output, row-major scales", nullptr, unsupported,
     prepare_rowmajor, run, destroy},
    {"blocked", NVFP4BENCH_GEMM, "example plugin: one thread per output, blocked (gpu-mode) scales", nullptr,
     unsupported, prepare_blocked, run, destroy},
    {"rowmajor", NVFP4BENCH_GROUP_GEMM, "example plugin: one launch per group, row-major scales", nullptr,
     unsupported, prepare_rowmajor, run, destroy},
    {"rowmajor", NVFP4BENCH_GEMV, "example plugin: one thread per output row, row-major scales", nullptr, unsupported,
     prepare_rowmajor, run, destroy},
    {"rowmajor", NVFP4BENCH_DUAL_GEMM, "example plugin: one thread per output, silu(x1)*x2, row-major scales", nullptr,
     unsupported, prepare_dual, run, destroy},
};
const nvfp4bench_plugin kPlugin = {NVFP4BENCH_PLUGIN_ABI_VERSION, "example", 5, kVariants};

}  // namespace

extern "C" const nvfp4bench_plugin* nvfp4bench_get_plugin(void) { return &kPlugin; }
