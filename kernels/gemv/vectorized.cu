// SPDX-License-Identifier: Apache-2.0
// gemv / vectorized
//
// Contract
//   c[l][m][0] = fp16( sum_k A[l][m][k]*SFA[l][m][k/16] * B[l][0][k]*SFB[l][0][k/16] ) for any
//   M >= 1, K % 64 == 0, L >= 1; any e2m1 codes, any finite e4m3 scales. Inputs as in
//   case_data.hpp (A [L][M][K/2], B [L][128][K/2] with row 0 the vector, row-major scales,
//   c [L][M][1] FP16). Blocked scales unused.
// Method
//   - Grid (x, L): every CTA serves one batch. It first issues its first matrix loads, then stages
//     that batch's vector in shared memory as exact int8 2*b (+ sb/4 as FP32 per 16-block), syncs
//     once, and from then on its 8 warps are independent.
//   - Warp work item = kR rows x all of K. A row is served by a group of LPR lanes
//     (LPR = min(32, largest power of two <= K/32)); a warp holds 32/LPR groups, each with kR rows.
//     Each lane reads 16-byte chunks (32 e2m1 = 2 scale blocks) of its rows, with the two scale
//     bytes of each chunk as one 16-bit load. Warps stride over the items of their batch.
//   - Register double buffering: the loads of the next step (kU chunks x kR rows, i.e. 4 x 16 B
//     per lane) are issued before the current step is decoded; the step sequence runs across item
//     boundaries, so short rows (K = 2048) pipeline as well as long ones.
//   - Decode: PRMT + DP4A on exact integers (gemv_common.cuh), 22 integer instructions per
//     16-block per row; the vector's int8 words are read once per chunk from shared memory and
//     shared by the kR rows.
//   - Per block: I2F of the exact integer dot, FFMA with sa*sb/4 (exact product) into an FP32
//     accumulator; lane-group shuffle reduction; one FP16 rounding per output.
//   Timed region: the single launch (vector staging happens inside it).
//   Run just this variant: nvfp4bench --problem gemv --shape 7168x16384x1 --variant vectorized
#include <cuda_fp16.h>

#include <algorithm>
#include <string>

#include "case_data.hpp"
#include "cuda_check.hpp"
#include "gemv_common.cuh"
#include "nvfp4.hpp"
#include "variant.hpp"

namespace nvfp4 {

namespace {

using namespace gemv_detail;

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kMinBlocks = 3;  // <= 80 registers
constexpr int kR = 2;          // rows per lane group
constexpr int kU = 2;          // 16-byte chunks per row per step

struct Args {
  const uint8_t* a;
  const uint8_t* sfa;
  const uint8_t* b;
  const uint8_t* sfb;
  __half* c;
  int m, k;
  int lpr_log2;  // log2(lanes per row)
  int items;     // work items per batch
};

struct Buf {
  uint4 a[kR][kU];
  uint32_t s[kR][kU];
};

struct Ctx {
  const uint8_t* a;    // this batch
  const uint8_t* sfa;  // this batch
  __half* c;           // this batch
  const uint4* bq;     // smem int8 vector
  const float2* sb;    // smem sb/4 pairs
  int m, chunks, lpr_log2, slots_log2, items, sub, slot, stride;
  uint32_t lut;  // lut_lo_reg()
};

__device__ __forceinline__ int item_row(const Ctx& x, int item, int r) {
  return ((item * kR + r) << x.slots_log2) + x.slot;
}

__device__ __forceinline__ void load_step(const Ctx& x, Buf& buf, int item, int cb) {
  const int64_t row_bytes = static_cast<int64_t>(x.chunks) * 16, sf_bytes = x.chunks * 2;
#pragma unroll
  for (int r = 0; r < kR; ++r) {
    const int row = item_row(x, item, r);
    const bool rv = item < x.items && row < x.m;
    const uint8_t* arow = x.a + row * row_bytes;
    const uint8_t* srow = x.sfa + row * sf_bytes;
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      const int c = cb + (u << x.lpr_log2) + x.sub;
      if (rv && c < x.chunks) {
        buf.a[r][u] = ldg_stream_v4(arow + 16 * c);
        buf.s[r][u] = ldg_stream_u16(srow + 2 * c);
      } else {
        buf.a[r][u] = make_uint4(0, 0, 0, 0);
        buf.s[r][u] = 0;
      }
    }
  }
}

__device__ __forceinline__ void compute_step(const Ctx& x, const Buf& buf, int cb, float (&acc)[kR]) {
#pragma unroll
  for (int u = 0; u < kU; ++u) {
    const int c = min(cb + (u << x.lpr_log2) + x.sub, x.chunks - 1);  // out-of-range chunks hold zeros
    const uint4 b_lo = x.bq[2 * c], b_hi = x.bq[2 * c + 1];
    const float2 sb = x.sb[c];
#pragma unroll
    for (int r = 0; r < kR; ++r) {
      const float2 sa = e4m3x2_to_float2(buf.s[r][u]);
      const uint4 w = buf.a[r][u];
      const int v0 = block_dot_x4(x.lut, w.x, w.y, b_lo);
      const int v1 = block_dot_x4(x.lut, w.z, w.w, b_hi);
      acc[r] = fmaf(static_cast<float>(v0), sa.x * sb.x, acc[r]);
      acc[r] = fmaf(static_cast<float>(v1), sa.y * sb.y, acc[r]);
    }
  }
}

__device__ __forceinline__ void finish_item(const Ctx& x, int item, float (&acc)[kR]) {
#pragma unroll
  for (int r = 0; r < kR; ++r) {
    const float v = group_sum(acc[r], 1 << x.lpr_log2);
    const int row = item_row(x, item, r);
    if (x.sub == 0 && row < x.m) x.c[row] = __float2half_rn(v);
    acc[r] = 0.0f;
  }
}

// One pipeline step: prefetch the next step into `nxt`, decode `cur`. False when the warp is done.
__device__ __forceinline__ bool step(const Ctx& x, Buf& cur, Buf& nxt, int& item, int& cb, float (&acc)[kR]) {
  int nitem = item, ncb = cb + (kU << x.lpr_log2);
  if (ncb >= x.chunks) {
    ncb = 0;
    nitem += x.stride;
  }
  load_step(x, nxt, nitem, ncb);
  compute_step(x, cur, cb, acc);
  if (ncb == 0) {
    finish_item(x, item, acc);
    if (nitem >= x.items) return false;
  }
  item = nitem;
  cb = ncb;
  return true;
}

__global__ void __launch_bounds__(kThreads, kMinBlocks) gemv_vectorized_kernel(Args p) {
  extern __shared__ uint4 smem[];
  const int l = blockIdx.y, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int64_t half_k = p.k / 2, sf_k = p.k / 16;
  Ctx x;
  x.a = p.a + static_cast<int64_t>(l) * p.m * half_k;
  x.sfa = p.sfa + static_cast<int64_t>(l) * p.m * sf_k;
  x.c = p.c + static_cast<int64_t>(l) * p.m;
  x.bq = smem;
  x.sb = reinterpret_cast<const float2*>(reinterpret_cast<const uint8_t*>(smem) + p.k);
  x.m = p.m;
  x.chunks = p.k / 32;
  x.lpr_log2 = p.lpr_log2;
  x.slots_log2 = 5 - p.lpr_log2;
  x.items = p.items;
  x.sub = lane & ((1 << p.lpr_log2) - 1);
  x.slot = lane >> p.lpr_log2;
  x.stride = gridDim.x * kWarps;
  x.lut = lut_lo_reg();

  int item = blockIdx.x * kWarps + warp, cb = 0;
  Buf b0, b1;
  load_step(x, b0, item, cb);  // in flight while the vector is staged
  stage_vector_int8(p.b + static_cast<int64_t>(l) * kGemvBRows * half_k, p.sfb + static_cast<int64_t>(l) * kGemvBRows * sf_k,
                    p.k, reinterpret_cast<uint8_t*>(smem));
  __syncthreads();
  if (item >= x.items) return;

  float acc[kR];
#pragma unroll
  for (int r = 0; r < kR; ++r) acc[r] = 0.0f;
#pragma unroll 1
  for (;;) {
    if (!step(x, b0, b1, item, cb, acc)) break;
    if (!step(x, b1, b0, item, cb, acc)) break;
  }
}

// ---- launch ----

int floor_log2(int v) {
  int r = 0;
  while ((2 << r) <= v) ++r;
  return r;
}

class VectorizedRunner final : public Runner {
 public:
  explicit VectorizedRunner(const GemmOperands& g) {
    const Dims& d = g.dims;
    m_args = Args{g.a.data, g.a.sf, g.b.data, g.b.sf, g.c, static_cast<int>(d.m), static_cast<int>(d.k), 0, 0};
    const int chunks = static_cast<int>(d.k / 32);
    m_args.lpr_log2 = std::min(5, floor_log2(chunks));
    const int rows_per_item = kR << (5 - m_args.lpr_log2);
    m_args.items = static_cast<int>(ceil_div(d.m, rows_per_item));
    m_smem = static_cast<size_t>(vector_smem_bytes(d.k));
    CUDA_CHECK(cudaFuncSetAttribute(gemv_vectorized_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(m_smem)));
    int dev = 0, sms = 0, occ = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, gemv_vectorized_kernel, kThreads, m_smem));
    occ = std::max(occ, 1);
    const int64_t per_batch = std::max<int64_t>(1, ceil_div(static_cast<int64_t>(sms) * occ, d.l));
    m_grid = dim3(static_cast<unsigned>(std::min<int64_t>(ceil_div(m_args.items, kWarps), per_batch)),
                  static_cast<unsigned>(d.l));
  }
  void run(cudaStream_t stream) override {
    gemv_vectorized_kernel<<<m_grid, kThreads, m_smem, stream>>>(m_args);
    CUDA_CHECK_LAUNCH();
  }

 private:
  Args m_args{};
  size_t m_smem = 0;
  dim3 m_grid;
};

std::string unsupported(const DeviceInfo& dev, const Shape& s) {
  const Dims& d = s.groups.at(0);
  if (dev.cc() < 89) return "needs compute capability 8.9 or newer (cvt e4m3x2, dp4a)";
  if (d.k % 64 != 0) return "needs K % 64 == 0";
  if (vector_smem_bytes(d.k) > dev.smem_per_block_optin)
    return "the staged vector (1.25*K bytes) exceeds the shared memory per block";
  if (d.l > 65535 || d.m * d.l > (int64_t{1} << 31) || d.m * d.k / 2 >= (int64_t{1} << 40))
    return "shape too large for the index types";
  return "";
}

std::unique_ptr<Runner> prepare(const CaseView& c, cudaStream_t) {
  return std::make_unique<VectorizedRunner>(c.groups.at(0));
}

}  // namespace

// ---- registry ----

extern const VariantInfo gemv_vectorized;
const VariantInfo gemv_vectorized{
    Problem::gemv,
    "vectorized",
    "lane groups per row, 16-B loads double-buffered in registers, PRMT+DP4A exact integer decode, "
    "vector staged as int8 in smem",
    "",
    &unsupported,
    &prepare,
};

}  // namespace nvfp4
