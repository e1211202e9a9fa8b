// SPDX-License-Identifier: Apache-2.0
// group_gemm / naive
//
// Contract
//   For every group g: C_g[m][n] = fp16( sum_k A_g[m][k]*SFA_g[m][k/16] * B_g[n][k]*SFB_g[n][k/16] )
//   with the group's own M_g, N_g, K_g (L = 1).
//   Inputs (case_data.hpp, one GemmOperands per group): A_g [M_g][K_g/2], B_g [N_g][K_g/2] packed
//   e2m1 (low nibble = lower k); ROW-MAJOR e4m3 scales a.sf [M_g][K_g/16], b.sf [N_g][K_g/16];
//   C_g [M_g][N_g] FP16 row-major. The blocked scale tensors are not used.
//   Method: ONE launch for all groups. prepare() uploads a device table of per-group pointers,
//   dims and first thread-block index (owned by the runner, untimed); the grid covers every
//   group's outputs, each block finds its group by binary search in the table, one thread per
//   output element. Decoding through nvfp4.hpp (e2m1_to_float, e4m3_to_float). Each 16-element
//   block's sum of e2m1 products is exact in FP32; it is multiplied by sfa*sfb and added to an
//   FP32 accumulator; one rounding to FP16 (__float2half_rn).
//   Constraints: K_g % 16 == 0 (the problem rule is K % 256); any M_g, N_g; CC >= 7.0.
//   Timed region: the single kernel launch (the table upload is in prepare).
//   Run just this variant: nvfp4bench --problem group_gemm --shape 96x128x256,128x256x512 --variant naive
#include <vector>

#include "../common/naive.cuh"
#include "core/device_buffer.hpp"
#include "core/variant.hpp"

namespace nvfp4 {

namespace {

// ---- kernel: what group_gemm adds to naive.cuh is the table of groups ----

using naive::kThreads;

struct GroupEntry {
  naive::Args args;     // l = 1
  int64_t first_block;  // first blockIdx.x of this group; blocks of a group are consecutive
};

__global__ void __launch_bounds__(kThreads) group_gemm_naive_kernel(const GroupEntry* __restrict__ table,
                                                                    int groups) {
  // Last group whose first_block <= blockIdx.x (table sorted by first_block, first entry 0).
  const int64_t block = blockIdx.x;
  int lo = 0, hi = groups - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (table[mid].first_block <= block) lo = mid;
    else hi = mid - 1;
  }
  const GroupEntry& g = table[lo];
  const int64_t t = (block - g.first_block) * kThreads + threadIdx.x;
  if (t >= g.args.m * g.args.n) return;
  naive::output<naive::Dot>(g.args, t);
}

// ---- launch ----

class NaiveRunner final : public Runner {
 public:
  NaiveRunner(const CaseView& c, cudaStream_t stream) {
    int64_t blocks = 0;
    for (const GemmOperands& g : c.groups) {
      m_host.push_back(GroupEntry{naive::args_of(g), blocks});
      blocks += ceil_div(g.dims.m * g.dims.n, kThreads);
    }
    m_blocks = blocks;
    m_table = DeviceBuffer(m_host.size() * sizeof(GroupEntry));
    CUDA_CHECK(cudaMemcpyAsync(m_table.get(), m_host.data(), m_table.bytes(), cudaMemcpyHostToDevice, stream));
  }
  void run(cudaStream_t stream) override {
    group_gemm_naive_kernel<<<static_cast<unsigned>(m_blocks), kThreads, 0, stream>>>(
        m_table.get<const GroupEntry>(), static_cast<int>(m_host.size()));
    CUDA_CHECK_LAUNCH();
  }

 private:
  std::vector<GroupEntry> m_host;  // kept alive for the asynchronous upload
  DeviceBuffer m_table;
  int64_t m_blocks = 0;
};

std::unique_ptr<Runner> prepare(const CaseView& c, cudaStream_t stream) {
  return std::make_unique<NaiveRunner>(c, stream);
}

}  // namespace

// ---- registry ----

extern const VariantInfo group_gemm_naive;
const VariantInfo group_gemm_naive{
    Problem::group_gemm,
    "naive",
    "one launch for all groups (device table), one thread per output, FP32 block accumulation",
    "",
    &needs_sm70,
    &prepare,
};

}  // namespace nvfp4
