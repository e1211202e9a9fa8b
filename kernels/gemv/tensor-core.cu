// SPDX-License-Identifier: Apache-2.0
// gemv / tensor-core
//
// Contract
//   c[l][m][0] = fp16( sum_k A[l][m][k]*SFA[l][m][k/16] * B[l][0][k]*SFB[l][0][k/16] ) for any
//   M >= 1, K % 64 == 0, L >= 1; any e2m1 codes, any finite e4m3 scales. Layouts as in
//   case_data.hpp; blocked scales unused.
// Method
//   - mma.sync.m16n8k16 FP16 x FP16 -> FP32. A warp owns a tile of 16 rows; lane (g = lane/4,
//     t = lane%4) holds rows g and g+8. One "step" = 128 k: lane t loads the 16-byte chunk
//     4*step + t of both of its rows (32 e2m1 each) plus their two scale bytes (one 16-bit load).
//   - Because both operands carry their own scale (a*sa and b*sb are exact in FP16) every k can go
//     to any MMA k-slot, as long as A and B use the same map. Each 32-bit word (8 nibbles) is
//     decoded with the shift-into-exponent trick into 4 half2 = nibble pairs (j, j+4), i.e. two
//     elements of the SAME row: exactly the A fragment's register pairs. So the fragment is built
//     from the lane's own 16-byte load with no shuffles: 4 words x 2 rows -> 8 MMAs per step.
//   - A: raw = a * 2^-14 (sign at bit 15, EEM at bits 11..9), then HMUL2 by sa (exact: a*sa is a
//     multiple of 2^-10 with <= 6 significant bits, so a*sa*2^-14 is an exact FP16, subnormals
//     included). The 2^14 is applied in FP32 at the end.
//   - B (the vector, N = 1 padded to 8 columns in registers): column 0 lives in lanes 0..3
//     (g == 0); the other lanes pass zeros. The CTA stages its batch's vector once in shared memory
//     as exact FP16 b*sb in fragment order (64 B per chunk), so lane t reads 4 x LDS.128 per step.
//   - Product of two scaled values happens inside the tensor core: exact, accumulated in FP32
//     (max product 2688 * 2688 * 2^-14 = 441, no overflow anywhere).
//   - K is split over S warps of a CTA (S = 1..8 chosen so that tiles x L x S fills the GPU); the
//     8 warps of a CTA own 8/S tiles. Partials meet in shared memory (one barrier per tile group),
//     CTAs loop over tile groups of one batch; register double buffering runs across groups.
//   - Grid (x, L), x = min(tile groups, floor(resident CTAs / L)): one wave, never more CTAs than slots.
//   Timed region: the single launch (vector staging happens inside it).
//   Run just this variant: nvfp4bench --problem gemv --shape 7168x16384x1 --variant tensor-core
#include <cuda_fp16.h>

#include <algorithm>
#include <string>

#include "core/case_data.hpp"
#include "core/cuda_check.hpp"
#include "core/nvfp4.hpp"
#include "core/variant.hpp"
#include "gemv_common.cuh"

namespace nvfp4 {

namespace {

using namespace gemv_detail;

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kMinBlocks = 3;
constexpr int kStepK = 128;  // k per warp step (4 lanes x 32 e2m1)

struct Args {
  const uint8_t* a;
  const uint8_t* sfa;
  const uint8_t* b;
  const uint8_t* sfb;
  __half* c;
  int m, k;
  int split_log2;        // S = 1 << split_log2 warps per tile
  int groups;            // tile groups per batch (8/S tiles of 16 rows each)
};

struct Buf {
  uint4 a[2];       // rows g, g+8: one 16-byte chunk each
  uint32_t s[2];    // their two scale bytes
};

// Shift trick (fp4_decode.cuh): 8 nibbles -> 4 half2 holding value * 2^-14; half2 j = (nibble j, j+4).
using fp4::hmul2_u32;

__device__ __forceinline__ void mma16816(float (&d)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                                         uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

struct Ctx {
  const uint8_t* a;
  const uint8_t* sfa;
  __half* c;
  const uint4* bh;  // smem: per chunk 4 x uint4 = 16 half2 (b*sb, fragment order)
  float* red;       // smem: [2][kWarps][16]
  int m, chunks, steps, split_log2, groups, stride, g, t, part, tile;
};

__device__ __forceinline__ int tile_row0(const Ctx& x, int group) {
  return ((group << (3 - x.split_log2)) + x.tile) * 16;
}

__device__ __forceinline__ void load_step(const Ctx& x, Buf& buf, int group, int step) {
  const int c = step * 4 + x.t;
  const int row = tile_row0(x, group) + x.g;
  const int64_t row_bytes = static_cast<int64_t>(x.chunks) * 16, sf_bytes = x.chunks * 2;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int r = row + 8 * h;
    if (group < x.groups && r < x.m && c < x.chunks) {
      buf.a[h] = ldg_stream_v4(x.a + r * row_bytes + 16 * c);
      buf.s[h] = ldg_stream_u16(x.sfa + r * sf_bytes + 2 * c);
    } else {
      buf.a[h] = make_uint4(0, 0, 0, 0);
      buf.s[h] = 0;
    }
  }
}

__device__ __forceinline__ void compute_step(const Ctx& x, const Buf& buf, int step, float (&acc0)[4],
                                             float (&acc1)[4]) {
  const int c = step * 4 + x.t;
  uint4 bv[4];
  if (x.g == 0 && c < x.chunks) {
#pragma unroll
    for (int i = 0; i < 4; ++i) bv[i] = x.bh[4 * c + i];
  } else {
#pragma unroll
    for (int i = 0; i < 4; ++i) bv[i] = make_uint4(0, 0, 0, 0);
  }
  const __half2 sa0 = e4m3x2_to_half2(buf.s[0]), sa1 = e4m3x2_to_half2(buf.s[1]);
  const uint32_t w0[4] = {buf.a[0].x, buf.a[0].y, buf.a[0].z, buf.a[0].w};
  const uint32_t w1[4] = {buf.a[1].x, buf.a[1].y, buf.a[1].z, buf.a[1].w};
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    const __half2 s0 = w < 2 ? __low2half2(sa0) : __high2half2(sa0);  // block 2c + w/2
    const __half2 s1 = w < 2 ? __low2half2(sa1) : __high2half2(sa1);
    uint32_t h0[4], h1[4];
    fp4::e2m1x8_to_raw_half2x4(w0[w], h0);
    fp4::e2m1x8_to_raw_half2x4(w1[w], h1);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      h0[j] = hmul2_u32(h0[j], s0);
      h1[j] = hmul2_u32(h1[j], s1);
    }
    const uint4 b = bv[w];  // half2 (w, j=0..3)
    mma16816(acc0, h0[0], h1[0], h0[1], h1[1], b.x, b.y);
    mma16816(acc1, h0[2], h1[2], h0[3], h1[3], b.z, b.w);
  }
}

// Tile group finished: partials to smem, one barrier, the first 128/S threads combine and store.
__device__ __forceinline__ void finish_group(const Ctx& x, int group, int parity, float (&acc0)[4], float (&acc1)[4]) {
  const int warp = threadIdx.x >> 5;
  float* red = x.red + parity * (kWarps * 16);
  if (x.t == 0) {
    red[warp * 16 + x.g] = (acc0[0] + acc1[0]) * 16384.0f;
    red[warp * 16 + x.g + 8] = (acc0[2] + acc1[2]) * 16384.0f;
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) acc0[i] = acc1[i] = 0.0f;
  __syncthreads();
  const int rows = 128 >> x.split_log2;
  if (static_cast<int>(threadIdx.x) < rows) {
    const int tt = threadIdx.x >> 4, r = threadIdx.x & 15, S = 1 << x.split_log2;
    float v = 0.0f;
    for (int p = 0; p < S; ++p) v += red[(tt * S + p) * 16 + r];
    const int row = group * rows + static_cast<int>(threadIdx.x);
    if (row < x.m) x.c[row] = __float2half_rn(v);
  }
}

__device__ __forceinline__ bool step(const Ctx& x, Buf& cur, Buf& nxt, int& group, int& st, int& parity,
                                     float (&acc0)[4], float (&acc1)[4]) {
  int ngroup = group, nst = st + (1 << x.split_log2);
  if (nst >= x.steps) {
    nst = x.part;
    ngroup += x.stride;
  }
  load_step(x, nxt, ngroup, nst);
  compute_step(x, cur, st, acc0, acc1);
  if (ngroup != group) {
    finish_group(x, group, parity, acc0, acc1);
    parity ^= 1;
    if (ngroup >= x.groups) return false;
  }
  group = ngroup;
  st = nst;
  return true;
}

// Shared memory: vector image (K/32 chunks x 64 B = 2K bytes), then the reduction buffer.
__host__ __device__ constexpr int64_t tc_smem_bytes(int64_t k) { return 2 * k + 2 * kWarps * 16 * 4; }

__device__ __forceinline__ void stage_vector_f16(const uint8_t* __restrict__ b_row, const uint8_t* __restrict__ sfb_row,
                                                 int chunks, uint4* bh) {
  // One thread per 32-bit word of the vector: 4 half2 (nibble j, nibble j+4) * sb, exact.
  for (int i = threadIdx.x; i < chunks * 4; i += blockDim.x) {
    const uint32_t w = __ldg(reinterpret_cast<const uint32_t*>(b_row) + i);
    const float sb = e4m3_to_float_dev(sfb_row[i / 2]);  // word i covers block i/2
    uint32_t out[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const __half lo = __float2half_rn(e2m1_to_float((w >> (4 * j)) & 0xFu) * sb);
      const __half hi = __float2half_rn(e2m1_to_float((w >> (4 * j + 16)) & 0xFu) * sb);
      out[j] = static_cast<uint32_t>(__half_as_ushort(lo)) | (static_cast<uint32_t>(__half_as_ushort(hi)) << 16);
    }
    bh[i] = make_uint4(out[0], out[1], out[2], out[3]);
  }
}

__global__ void __launch_bounds__(kThreads, kMinBlocks) gemv_tensor_core_kernel(Args p) {
  extern __shared__ uint4 smem[];
  const int l = blockIdx.y, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const GemvBatch bt = gemv_batch(p, l);
  Ctx x;
  x.a = bt.a;
  x.sfa = bt.sfa;
  x.c = bt.c;
  x.bh = smem;
  x.red = reinterpret_cast<float*>(reinterpret_cast<uint8_t*>(smem) + 2 * static_cast<int64_t>(p.k));
  x.m = p.m;
  x.chunks = p.k / 32;
  x.steps = (p.k + kStepK - 1) / kStepK;
  x.split_log2 = p.split_log2;
  x.groups = p.groups;
  x.stride = gridDim.x;
  x.g = lane >> 2;
  x.t = lane & 3;
  x.part = warp & ((1 << p.split_log2) - 1);
  x.tile = warp >> p.split_log2;

  int group = blockIdx.x, st = x.part, parity = 0;
  Buf b0, b1;
  load_step(x, b0, group, st);
  stage_vector_f16(bt.v, bt.sfv, x.chunks, smem);
  __syncthreads();
  if (group >= x.groups) return;  // CTA-uniform

  float acc0[4] = {0.0f, 0.0f, 0.0f, 0.0f}, acc1[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll 1
  for (;;) {
    if (!step(x, b0, b1, group, st, parity, acc0, acc1)) break;
    if (!step(x, b1, b0, group, st, parity, acc0, acc1)) break;
  }
}

// ---- launch ----

class TensorCoreRunner final : public Runner {
 public:
  explicit TensorCoreRunner(const GemmOperands& g) {
    const Dims& d = g.dims;
    m_args = Args{g.a.data, g.a.sf, g.b.data, g.b.sf, g.c, static_cast<int>(d.m), static_cast<int>(d.k), 0, 0};
    m_smem = static_cast<size_t>(tc_smem_bytes(d.k));
    CUDA_CHECK(cudaFuncSetAttribute(gemv_tensor_core_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(m_smem)));
    int dev = 0, sms = 0, occ = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, gemv_tensor_core_kernel, kThreads, m_smem));
    occ = std::max(occ, 1);
    // Split K over S warps: the smallest S (<= steps per row) that gives every resident warp a tile.
    const int64_t tiles = ceil_div(d.m, 16), steps = ceil_div(d.k, kStepK);
    const int64_t target = static_cast<int64_t>(sms) * occ * kWarps;
    int s_log2 = 0;
    while (s_log2 < 3 && (int64_t{2} << s_log2) <= steps && tiles * d.l * (int64_t{1} << s_log2) < target) ++s_log2;
    m_args.split_log2 = s_log2;
    m_args.groups = static_cast<int>(ceil_div(tiles, kWarps >> s_log2));
    // One resident wave: floor, so that grid.x * L never exceeds the resident CTA slots.
    const int64_t per_batch = std::max<int64_t>(1, static_cast<int64_t>(sms) * occ / d.l);
    m_grid = dim3(static_cast<unsigned>(std::min<int64_t>(m_args.groups, per_batch)), static_cast<unsigned>(d.l));
  }
  void run(cudaStream_t stream) override {
    gemv_tensor_core_kernel<<<m_grid, kThreads, m_smem, stream>>>(m_args);
    CUDA_CHECK_LAUNCH();
  }

 private:
  Args m_args{};
  size_t m_smem = 0;
  dim3 m_grid;
};

std::string unsupported(const DeviceInfo& dev, const Shape& s) {
  const Dims& d = s.groups.at(0);
  return unsupported_common(dev, d, "cvt e4m3x2", tc_smem_bytes(d.k), "the staged FP16 vector (2*K bytes)",
                            int64_t{1} << 31);
}

std::unique_ptr<Runner> prepare(const CaseView& c, cudaStream_t) {
  return std::make_unique<TensorCoreRunner>(c.groups.at(0));
}

}  // namespace

// ---- registry ----

extern const VariantInfo gemv_tensor_core;
const VariantInfo gemv_tensor_core{
    Problem::gemv,
    "tensor-core",
    "mma.sync m16n8k16 FP16->FP32, A decoded in registers into the fragment (scale folded, exact), "
    "vector as column 0 of N=8, K split over warps",
    "",
    &unsupported,
    &prepare,
};

}  // namespace nvfp4
