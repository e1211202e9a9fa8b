// SPDX-License-Identifier: Apache-2.0
// group_gemm / persistent
//
// Contract
//   For every group g: C_g[m][n] = fp16( sum_k A_g[m][k]*SFA_g * B_g[n][k]*SFB_g ) with the group's
//   own M_g, N_g and K_g % 64 == 0 (L = 1); any e2m1 codes and finite e4m3 scales. Reads A_g with
//   its row-major scales and B_g with its BLOCKED (gpu-mode) scales. Hopper only (sm_90a: wgmma,
//   TMA); SKIP elsewhere. Groups may differ in M, N and K.
// Method (kernels/common/gemm_wgmma.cuh, the gemm persistent main loop)
//   prepare uploads a table of the groups (pointers, sizes, first tile, token workspace offset)
//   and a table of their TMA descriptors. run: one token pre-pass over all groups, then ONE
//   persistent wgmma launch whose GroupScheduler walks every group's tiles in order (with at most 4
//   groups, 2 x 128, a resident grid and one batch of token loads per consumer thread, that launch
//   decodes the tokens itself, in a kernel of its own: docs/perf-notes.md P74; so does the 2 x 256
//   kernel of at most 8 groups whose consumer threads' share is 2-4 chunks, in two counted phases:
//   P123); the producer
//   reads a tile's descriptors from the table. The CTA shape (2 x 128, 3 x 128 or 2 x 256
//   consumers x tokens) is picked per case by the cost model (the result's `plan`).
//   Timed region: both launches. Untimed: the table uploads and the workspace allocation.
//   Run just this variant: nvfp4bench --problem group_gemm --shape 80x4096x7168,176x4096x7168 --variant persistent
#include "../common/gemm_wgmma.cuh"

namespace nvfp4 {

namespace {

std::unique_ptr<Runner> prepare(const CaseView& c, cudaStream_t stream) {
  return std::make_unique<gemm::wg::WgmmaRunner<1, true>>(c, stream);
}

}  // namespace

extern const VariantInfo group_gemm_persistent;
const VariantInfo group_gemm_persistent{
    Problem::group_gemm,
    "persistent",
    "all groups in one persistent wgmma launch (the gemm persistent main loop over a group table, TMA descriptors "
    "per group in global memory), data-parallel over all groups' tiles or stream-K over all their K steps; A decoded "
    "once by a timed pre-pass",
    "",
    &gemm::wg::unsupported,
    &prepare,
};

}  // namespace nvfp4
