// SPDX-License-Identifier: Apache-2.0
// gemm_tokens.cuh: the token pre-pass of the tensor-core GEMM-family variants (`tensor-core`,
// `persistent`): A (tokens, M x K) -> exact FP16 a*sa in a workspace [L][M_pad][K] per GEMM of
// the launch, each 64-element chunk in "fragment order": for scale block t (elements 16t..16t+15)
// decoded as decode_block16_raw does (8 half2 h[0..7]), k slots 16j + 2t, +1 hold h[2j] and
// 16j + 8 + 2t, +1 hold h[2j+1]: the order in which the shift-trick decode (core/fp4_decode.cuh)
// hands lane (g, t) its weights for the A fragments of k16 steps j = 0..3 (mma.sync m16n8k16 and
// wgmma m64nNk16 share that fragment layout).
// The main loops decode the weights in that order, so both operands agree on which element sits
// in which k slot (any permutation of K is allowed: every value already carries its scale).
// A is small in the GEMM family (M = 128..512 tokens): decoding it once keeps the main loops'
// integer work on the weights. Timed as part of the variant.
#pragma once

#include <cuda_fp16.h>

#include "core/cuda_check.hpp"
#include "core/fp4_decode.cuh"
#include "gemm_launch.cuh"

namespace nvfp4::gemm {

inline constexpr int kTokenChunk = 64;  // K elements per fragment-order chunk (the main loops' K step)


// What the pre-pass decodes: every GEMM of `entries` (device table, `groups` entries, token regions
// back to back, `chunks` 64-element chunks in all; `first` = the table's first entry, read from the
// kernel's parameters when there is one GEMM) into `out`.
struct TokenJob {
  const GemmEntry* entries = nullptr;
  GemmEntry first;
  int groups = 1;
  int64_t chunks = 0;
  __half* out = nullptr;
};

// kThreads threads decode chunks [first_chunk, first_chunk + kThreads / 4): one thread per
// (GEMM, batch, row, 16-element block), so kThreads / 4 consecutive 64-element chunks = kThreads
// x 32 bytes of contiguous output (the GEMMs' token regions follow each other), assembled in
// `stage` (shared memory, kThreads x 32 bytes) and written with 16-byte stores. Rows in
// [m, m_pad) are written as zeros. Every thread of the CTA calls it (one __syncthreads inside).
template <int kThreads>
__device__ __forceinline__ void decode_token_chunks(const TokenJob& job, int64_t first_chunk, uint4* stage) {
  const int64_t chunk = first_chunk + (threadIdx.x >> 2);
  const int t = threadIdx.x & 3;
  uint32_t h[8] = {};
  if (chunk < job.chunks) {
    // One GEMM (gemm, dual_gemm): its entry is a kernel parameter, no dependent global loads
    // before the data loads. Groups: a scan of the device table.
    int g = 0;
    while (g + 1 < job.groups && job.entries[g + 1].tok_offset / kTokenChunk <= chunk) ++g;
    const GemmEntry& e = job.groups == 1 ? job.first : job.entries[g];
    const int64_t k = e.args.k;
    // 32-bit index arithmetic: a GEMM's chunk count, chunks per row and padded rows fit (too_large).
    const uint32_t chunks_per_row = static_cast<uint32_t>(k / kTokenChunk), m_pad = static_cast<uint32_t>(e.m_pad);
    const uint32_t local = static_cast<uint32_t>(chunk - e.tok_offset / kTokenChunk);
    const uint32_t row_all = local / chunks_per_row;  // over batches
    const uint32_t b = row_all / m_pad, row = row_all - b * m_pad;
    const int64_t blk = int64_t{local - row_all * chunks_per_row} * 4 + t;
    if (row < e.args.m) {
      const int64_t r = int64_t{b} * e.args.m + row;
      const uint2 packed = *reinterpret_cast<const uint2*>(e.args.a + r * (k / 2) + blk * 8);
      const __half2 scale = fp4::e4m3_to_half2_bcast(e.args.sfa[r * (k / 16) + blk]);
      fp4::decode_block16_raw(packed, scale, h);  // a*sa*2^-14, exact
      const __half2 unraw = __float2half2_rn(fp4::kRawScale);
#pragma unroll
      for (int i = 0; i < 8; ++i) h[i] = fp4::hmul2_u32(h[i], unraw);  // exact: a*sa, at most 2688
    }
  }
  // Fragment order within a chunk: k slots 16j + 2t (+1) hold h[2j], 16j + 8 + 2t (+1) h[2j+1],
  // for scale block t of the chunk.
  uint32_t* st = reinterpret_cast<uint32_t*>(stage) + (threadIdx.x >> 2) * 32;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    st[8 * j + t] = h[2 * j];
    st[8 * j + 4 + t] = h[2 * j + 1];
  }
  __syncthreads();
  const int64_t vecs = min(int64_t{kThreads / 4}, job.chunks - first_chunk) * 8;  // 16-byte vectors here
  uint4* dst = reinterpret_cast<uint4*>(job.out) + first_chunk * 8;
  for (int v = threadIdx.x; v < vecs; v += kThreads) dst[v] = stage[v];
}

// The pre-pass as its own launch (`tensor-core`): one CTA per kDecodeThreads / 4 chunks.
// static: each including file gets its own copy.
inline constexpr int kDecodeThreads = 256;
static __global__ void __launch_bounds__(kDecodeThreads) decode_tokens_kernel(const __grid_constant__ TokenJob job) {
  __shared__ uint4 stage[kDecodeThreads * 2];  // 64 chunks x 128 bytes, output order
  decode_token_chunks<kDecodeThreads>(job, static_cast<int64_t>(blockIdx.x) * (kDecodeThreads / 4), stage);
}

inline void decode_tokens(const TokenJob& job, cudaStream_t stream) {
  const int64_t threads = job.chunks * 4;
  decode_tokens_kernel<<<static_cast<unsigned>((threads + kDecodeThreads - 1) / kDecodeThreads), kDecodeThreads, 0,
                         stream>>>(job);
  CUDA_CHECK_LAUNCH();
}

// The pre-pass's state for one planned launch (allocated and uploaded in prepare, untimed): the
// device table of the launch's GEMMs (the main loop's GroupScheduler reads it too), its first
// entry (read from the kernel's parameters when there is one GEMM), and the FP16 workspace.
struct TokenWorkspace {
  EntryTable table;
  int groups = 1;
  GemmEntry first;
  int64_t chunks = 0;
  DeviceBuffer tokens;
  TokenWorkspace() = default;
  TokenWorkspace(const LaunchPlan& lp, cudaStream_t stream)
      : table(lp.entries, stream),
        groups(static_cast<int>(lp.entries.size())),
        first(lp.entries.at(0)),
        chunks(lp.token_elems / kTokenChunk),
        tokens(static_cast<size_t>(lp.token_elems) * sizeof(__half)) {}
  TokenJob job() const { return TokenJob{table.get(), first, groups, chunks, data()}; }
  void decode(cudaStream_t stream) const { decode_tokens(job(), stream); }
  __half* data() const { return tokens.get<__half>(); }
};

}  // namespace nvfp4::gemm
