// SPDX-License-Identifier: Apache-2.0
// generate.cu: on-device input generation (PROBLEMS.md section 2 distributions) and CaseData.
//
// Every byte is a pure function of (seed, tensor id, index) through Philox4x32-10. The row-major
// and blocked scale tensors are generated independently from the same draws, so they agree by
// construction (no scatter); blocked padding entries (rows >= M or scale columns >= K/16) draw
// from a separate tensor id, as gpu-mode fills them with random values too.
#include <cuda_fp8.h>

#include <algorithm>

#include "core/case_data.hpp"
#include "core/nvfp4.hpp"
#include "core/rng.hpp"

namespace nvfp4 {

namespace {

// How one problem draws data bytes and scale codes. Kinds are resolved on the host and passed
// by value, so one kernel serves every problem.
enum class DataKind : int {
  byte_0_3,       // gemv: randint(0,4) bytes -> low nibble {0,.5,1,1.5}, high nibble 0
  byte_any,       // gemm and uniform: every byte value
  byte_masked,    // dual / group: randint(0,255) & 0b1011_1011
};
enum class ScaleKind : int {
  int_0_2,        // gemv: {0, 1, 2}
  int_0_3,        // gemm: {0, 1, 2, 3}
  int_1_2,        // group: {1, 2}
  rand_unit,      // dual: e4m3(U[0,1))
  wide,           // uniform: codes 0x00..0x4F: zero, every subnormal, normals 2^-6 .. 7.5
};

struct DistSpec {
  DataKind data;
  ScaleKind scale;
};

DistSpec dist_spec(Problem p, Dist d) {
  if (d == Dist::uniform) return {DataKind::byte_any, ScaleKind::wide};
  switch (p) {
    case Problem::gemv: return {DataKind::byte_0_3, ScaleKind::int_0_2};
    case Problem::gemm: return {DataKind::byte_any, ScaleKind::int_0_3};
    case Problem::dual_gemm: return {DataKind::byte_masked, ScaleKind::rand_unit};
    case Problem::group_gemm: return {DataKind::byte_masked, ScaleKind::int_1_2};
  }
  return {DataKind::byte_any, ScaleKind::wide};
}

__device__ __forceinline__ uint8_t data_byte(DataKind kind, uint32_t u) {
  switch (kind) {
    case DataKind::byte_0_3: return static_cast<uint8_t>(u & 3u);
    case DataKind::byte_masked: return static_cast<uint8_t>((u % 255u) & 0xBBu);
    default: return static_cast<uint8_t>(u & 0xFFu);
  }
}

__device__ __forceinline__ uint8_t small_int_e4m3(uint32_t v) {
  // e4m3 codes of 0, 1, 2, 3
  constexpr uint8_t codes[4] = {0x00, 0x38, 0x40, 0x44};
  return codes[v & 3u];
}

__device__ __forceinline__ uint8_t scale_code(ScaleKind kind, uint32_t u) {
  switch (kind) {
    case ScaleKind::int_0_2: return small_int_e4m3(u % 3u);
    case ScaleKind::int_0_3: return small_int_e4m3(u & 3u);
    case ScaleKind::int_1_2: return small_int_e4m3(1u + (u & 1u));
    case ScaleKind::rand_unit: {
      const float x = static_cast<float>(u >> 8) * (1.0f / 16777216.0f);  // U[0,1), 24 bits
      return static_cast<uint8_t>(__nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3));
    }
    default: return static_cast<uint8_t>(u % 0x50u);
  }
}

__global__ void fill_data(uint8_t* out, int64_t n, uint64_t seed, uint32_t tensor, DataKind kind) {
  const int64_t q = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;  // 4 bytes per thread
  if (4 * q >= n) return;
  const Philox4 r = draw4(seed, tensor, static_cast<uint64_t>(q));
#pragma unroll
  for (int i = 0; i < 4; ++i)
    if (4 * q + i < n) out[4 * q + i] = data_byte(kind, r.v[i]);
}

__global__ void fill_scales_rowmajor(uint8_t* out, int64_t n, uint64_t seed, uint32_t tensor, ScaleKind kind) {
  const int64_t q = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (4 * q >= n) return;
  const Philox4 r = draw4(seed, tensor, static_cast<uint64_t>(q));
#pragma unroll
  for (int i = 0; i < 4; ++i)
    if (4 * q + i < n) out[4 * q + i] = scale_code(kind, r.v[i]);
}

// One thread per blocked byte: map the offset back to (batch, row, scale column).
__global__ void fill_scales_blocked(uint8_t* out, SfGeometry g, uint64_t seed, uint32_t tensor,
                                    uint32_t pad_tensor, ScaleKind kind) {
  const int64_t off = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  const int64_t per_batch = g.blocked_bytes_per_batch();
  if (off >= per_batch * g.batches) return;
  const int64_t b = off / per_batch, r = off % per_batch;
  const int64_t rb = r / (g.col_blocks() * kAtomBytes), r2 = r % (g.col_blocks() * kAtomBytes);
  const int64_t cb = r2 / kAtomBytes, a = r2 % kAtomBytes;
  const int64_t i = rb * kAtomRows + ((a % 16) / 4) * 32 + a / 16;
  const int64_t j = cb * kAtomSfCols + a % 4;
  uint32_t u;
  if (i < g.rows && j < g.sf_cols) u = draw1(seed, tensor, static_cast<uint64_t>(g.rowmajor_offset(i, j, b)));
  else u = draw1(seed, pad_tensor, static_cast<uint64_t>(off));
  out[off] = scale_code(kind, u);
}

constexpr int kThreads = 256;
unsigned blocks_for(int64_t n) { return static_cast<unsigned>(std::max<int64_t>(1, ceil_div(n, kThreads))); }

int64_t align256(int64_t x) { return (x + 255) / 256 * 256; }

}  // namespace

CaseData::CaseData(Problem p, const Shape& s, Dist dist, uint64_t seed, cudaStream_t stream)
    : m_storage(static_cast<size_t>(device_bytes(p, s))) {
  m_view.problem = p;
  m_view.shape = s;
  const DistSpec spec = dist_spec(p, dist);
  auto* base = m_storage.get<uint8_t>();
  int64_t used = 0;
  auto take = [&](int64_t bytes) {
    uint8_t* ptr = base + used;
    used += align256(bytes);
    if (used > static_cast<int64_t>(m_storage.bytes()))
      throw std::logic_error("CaseData: device_bytes() undercounts the case");
    return ptr;
  };
  uint32_t next_id = 1;
  auto make_operand = [&](int64_t rows, const Dims& d) {
    Fp4Matrix m;
    m.rows = rows;
    m.k = d.k;
    m.l = d.l;
    const SfGeometry g{rows, d.k / kSfVec, d.l};
    const int64_t data_bytes = rows * d.k / 2 * d.l;
    auto* data = take(data_bytes);
    auto* sf = take(g.rowmajor_bytes());
    auto* sfb = take(g.blocked_bytes());
    const uint32_t data_id = next_id++, sf_id = next_id++, pad_id = next_id++;
    fill_data<<<blocks_for(ceil_div(data_bytes, 4)), kThreads, 0, stream>>>(data, data_bytes, seed, data_id, spec.data);
    CUDA_CHECK_LAUNCH();
    fill_scales_rowmajor<<<blocks_for(ceil_div(g.rowmajor_bytes(), 4)), kThreads, 0, stream>>>(
        sf, g.rowmajor_bytes(), seed, sf_id, spec.scale);
    CUDA_CHECK_LAUNCH();
    fill_scales_blocked<<<blocks_for(g.blocked_bytes()), kThreads, 0, stream>>>(sfb, g, seed, sf_id, pad_id, spec.scale);
    CUDA_CHECK_LAUNCH();
    m.data = data;
    m.sf = sf;
    m.sf_blocked = sfb;
    return m;
  };
  // Draw order per group: a, b, (b2), as gpu-mode draws a, b1, b2.
  for (const Dims& d : s.groups) {
    GemmOperands g;
    g.dims = d;
    g.a = make_operand(d.m, d);
    g.b = make_operand(b_rows(p, d), d);
    if (p == Problem::dual_gemm) g.b2 = make_operand(d.n, d);
    g.c = reinterpret_cast<__half*>(take(2 * d.m * d.n * d.l));
    m_view.groups.push_back(g);
  }
  poison_outputs(stream);
}

void CaseData::poison_outputs(cudaStream_t stream) const {
  for (const GemmOperands& g : m_view.groups)  // 0xFFFF is an FP16 NaN
    CUDA_CHECK(cudaMemsetAsync(g.c, 0xFF, static_cast<size_t>(2 * g.dims.m * g.dims.n * g.dims.l), stream));
}

HostFp4Matrix to_host(const Fp4Matrix& m) {
  HostFp4Matrix h;
  h.rows = m.rows;
  h.k = m.k;
  h.l = m.l;
  const SfGeometry g{m.rows, m.k / kSfVec, m.l};
  h.data.resize(static_cast<size_t>(m.rows * m.k / 2 * m.l));
  h.sf.resize(static_cast<size_t>(g.rowmajor_bytes()));
  h.sf_blocked.resize(static_cast<size_t>(g.blocked_bytes()));
  CUDA_CHECK(cudaMemcpy(h.data.data(), m.data, h.data.size(), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(h.sf.data(), m.sf, h.sf.size(), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(h.sf_blocked.data(), m.sf_blocked, h.sf_blocked.size(), cudaMemcpyDeviceToHost));
  return h;
}

std::vector<__half> to_host(const __half* dev, int64_t count) {
  std::vector<__half> out(static_cast<size_t>(count));
  CUDA_CHECK(cudaMemcpy(out.data(), dev, out.size() * sizeof(__half), cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace nvfp4
