// SPDX-License-Identifier: Apache-2.0
// gemm_launch.cuh: the host side of the GEMM-family variants: cluster occupancy and launch,
// split choice, the launch plan over one GEMM or a group table, the scheduler built from it, and
// the support checks the main loops share. Device pieces: gemm_common.cuh.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "core/device_info.hpp"
#include "gemm_common.cuh"
#include "tile_rows.hpp"

namespace nvfp4::gemm {

// Empty when every index of a GEMM fits the 32-bit tile fields, else why not.
inline const char* too_large(int64_t m, int64_t n, int64_t k, int64_t l) {
  if (m >= (int64_t{1} << 30) || n >= (int64_t{1} << 30) || l >= (int64_t{1} << 30) || k / 16 >= (int64_t{1} << 26))
    return "shape too large for the 32-bit tile indices";
  if (((m + 127) / 128) * ((n + 63) / 64) * l * 16 >= (int64_t{1} << 31)) return "too many output tiles for one launch";
  return "";
}

// Splits for `tiles` output tiles of `k_steps` K steps: the most splits (at most kMaxSplits,
// the portable cluster size) that still fit in ONE wave, `slots(s)` being how many CTAs run at once
// in clusters of s, keeping at least `min_steps` K steps per split. More waves of shorter splits
// looked cheaper by K steps alone, but every split adds a partial tile to reduce (gemm
// 128x7168x16384 on an H100: 14 splits in 3 waves ran slower than 4 in one).
inline constexpr int kMaxSplits = 8;
static_assert(kMaxSplits <= kMaxClusterRanks, "a split tile is one cluster");
template <class SlotsFn>
int choose_splits(int64_t tiles, int k_steps, SlotsFn slots, int min_steps = 4) {
  int best = 1;
  for (int s = 2; s <= kMaxSplits && k_steps / s >= min_steps; ++s)
    if (tiles * s <= slots(s)) best = s;
  return best;
}


// True where K can be split: clusters (sm_90+) carry the reduction.
inline bool splits_supported() {
  int dev = 0, major = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  return major >= 9;
}

// A launch configuration of `blocks` CTAs in clusters of `cluster` along x (not copyable: cfg
// points at attr).
struct ClusterLaunch {
  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute attr{};
  ClusterLaunch(int64_t blocks, int threads, size_t smem, int cluster, cudaStream_t stream) {
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = static_cast<unsigned>(cluster);
    attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
    cfg.gridDim = dim3(static_cast<unsigned>(blocks));
    cfg.blockDim = dim3(static_cast<unsigned>(threads));
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
  }
  ClusterLaunch(const ClusterLaunch&) = delete;
  ClusterLaunch& operator=(const ClusterLaunch&) = delete;
};

// CTAs of `kernel` that run at once on the current device in clusters of `cluster` CTAs (the
// dynamic shared-memory limit raised to `smem` first).
template <class Kernel>
int64_t resident_ctas(Kernel kernel, int threads, size_t smem, int cluster) {
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  if (cluster == 1) {
    int dev = 0, sms = 0, occ = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, threads, smem));
    return static_cast<int64_t>(occ) * sms;
  }
  const ClusterLaunch cl(cluster, threads, smem, cluster, nullptr);
  int clusters = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &cl.cfg));
  return static_cast<int64_t>(clusters) * cluster;
}

// CTAs of `kernel` that run at once ONE PER SM in clusters of `cluster`: the occupancy query asked
// with enough dynamic shared memory that no second CTA fits on an SM (the kernel's limit is raised
// to it; launches with less stay valid). The hardware places CTAs one per SM first, clusters only
// where a whole cluster fits (an H100 runs clusters of 3 to 8 on 124 of its 132 SMs), so a launch
// of at most this many CTAs has no two on one SM (docs/perf-notes.md P65 probe).
template <class Kernel>
int64_t lone_ctas(Kernel kernel, int threads, size_t smem, int cluster) {
  int dev = 0, sms = 0, per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  if (cluster == 1) return sms;
  CUDA_CHECK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
  const size_t alone = std::max(smem, static_cast<size_t>(per_sm) / 2 + 1024);
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(alone)));
  const ClusterLaunch cl(cluster, threads, alone, cluster, nullptr);
  int clusters = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &cl.cfg));
  return static_cast<int64_t>(clusters) * cluster;
}

// Launches `kernel` with `blocks` CTAs in clusters of `cluster` along x.
template <class Kernel, class... Args>
void launch_clustered(Kernel kernel, int64_t blocks, int threads, size_t smem, int cluster, cudaStream_t stream,
                      Args... args) {
  const ClusterLaunch cl(blocks, threads, smem, cluster, stream);
  CUDA_CHECK(cudaLaunchKernelEx(&cl.cfg, kernel, args...));
}

// The entries of a launch over `gemms` with CTA tiles of tile_tokens x tile_cols and K steps of
// k_step (token workspace offsets for the tensor-core pre-pass: rows padded to tile_tokens), and the
// one-wave split count from the cluster occupancy of `kernel` (uniform over the launch; at least
// min_steps K steps per split in the GEMM with the fewest).
struct LaunchPlan {
  std::vector<GemmEntry> entries;
  TileShape ts;
  int64_t tiles = 0;
  int64_t token_elems = 0;  // size of the token workspace
  int64_t steps = 0;        // K steps of all tiles (stream-K's iterations; entries' first_step valid below 2^31)
};

// The fewest K steps of any GEMM of a launch planned as `lp` (what bounds its split count).
inline int min_k_steps(const LaunchPlan& lp) {
  int k = 1 << 30;
  for (const GemmEntry& e : lp.entries) k = std::min(k, static_cast<int>(e.k_steps));
  return k;
}

template <class Kernel>
LaunchPlan plan_launch(Kernel kernel, int threads, size_t smem, const std::vector<GemmArgs>& gemms, int tile_tokens,
                       int tile_cols, int k_step, int min_steps, bool balanced_rows = false) {
  LaunchPlan lp;
  lp.ts.tokens = tile_tokens;
  lp.ts.cols = tile_cols;
  for (const GemmArgs& p : gemms) {
    GemmEntry e;
    e.args = p;
    e.tiles_t = static_cast<int>((p.m + tile_tokens - 1) / tile_tokens);
    e.tiles_n = static_cast<int>((p.n + tile_cols - 1) / tile_cols);
    e.k_steps = static_cast<int>(p.k / k_step);
    e.first_tile = static_cast<int>(lp.tiles);
    e.m_pad = static_cast<int>(int64_t{e.tiles_t} * tile_tokens);
    e.tile_rows = balanced_rows ? balanced_tile_rows(p.m, tile_tokens) : tile_tokens;
    e.tok_chunks = static_cast<int>(p.k / kTokenChunk);
    e.tok_offset = lp.token_elems;
    e.first_step = static_cast<int>(std::min<int64_t>(lp.steps, INT32_MAX));
    lp.steps += int64_t{e.tiles_t} * e.tiles_n * p.l * e.k_steps;
    lp.tiles += int64_t{e.tiles_t} * e.tiles_n * p.l;
    lp.token_elems += p.l * int64_t{e.m_pad} * p.k;
    lp.entries.push_back(e);
  }
  resident_ctas(kernel, threads, smem, 1);  // raises the shared-memory limit
  if (splits_supported())
    lp.ts.splits = choose_splits(lp.tiles, min_k_steps(lp),
                                 [&](int c) { return resident_ctas(kernel, threads, smem, c); }, min_steps);
  return lp;
}

// An integer in [lo, hi] forced by environment variable `env`, or `fallback` where it is unset or
// empty; anything else (not a whole number, out of range) is an error.
inline int forced_int(const char* env, int lo, int hi, int fallback) {
  const char* v = std::getenv(env);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  if (*end != '\0' || x < lo || x > hi)
    throw std::invalid_argument(std::string(env) + "=" + v + ": must be a whole number from " + std::to_string(lo) +
                                " to " + std::to_string(hi));
  return static_cast<int>(x);
}

// A K-split count forced by environment variable `env` (1 to kMaxSplits, at most the fewest K
// steps of the launch's GEMMs; unset, empty or 0: the planned one), to measure the split choice
// against the cost model. Splits past 1 need clusters (sm_90+).
inline void force_splits(LaunchPlan& lp, const char* env) {
  const int s = forced_int(env, 0, kMaxSplits, 0);
  if (s == 0) return;
  const int min_k = min_k_steps(lp);
  if (s > min_k)
    throw std::invalid_argument(std::string(env) + "=" + std::to_string(s) + ": more splits than the fewest K steps (" +
                                std::to_string(min_k) + ")");
  if (s > 1 && !splits_supported())
    throw std::invalid_argument(std::string(env) + "=" + std::to_string(s) + ": K splits need clusters (sm_90 or newer)");
  lp.ts.splits = s;
}

// The stream-K alternative of a planned launch (stream_k.hpp) on at most `resident` CTAs at once,
// at least kStreamKMinSteps K steps each, and its cost for the cost models, in the caller's units:
// the busiest CTA's K steps at `step` each, plus `peer` per partial tile it adds and `store` for
// one it writes. sk.ctas == 0
// (and cost infinite) where the launch has 2^31 K steps or more. `force_ctas_env` names an
// environment variable that forces the CTA count (tests: runs that straddle tiles in every way),
// never above `resident` (an owner waits for the CTAs after it, which must be running).
inline constexpr int kStreamKMinSteps = 4;
struct StreamKPlan {
  StreamK sk;
  double cost = 1e300;
};
inline StreamKPlan plan_stream_k(const LaunchPlan& lp, int64_t resident, double step, double peer, double store,
                                 const char* force_ctas_env) {
  StreamKPlan p;
  if (lp.steps >= INT32_MAX || resident >= (1 << 15)) return p;
  int64_t ctas = std::min<int64_t>(resident, lp.steps / kStreamKMinSteps);
  if (const int n = forced_int(force_ctas_env, 1, 1 << 30, 0); n > 0) ctas = std::min<int64_t>(resident, n);
  p.sk = StreamK(static_cast<int>(lp.steps), static_cast<int>(std::max<int64_t>(1, ctas)));
  const GemmEntry* entries = lp.entries.data();
  const int groups = static_cast<int>(lp.entries.size());
  p.cost = stream_k_cost(p.sk, [&](int it) { return span_in_table(entries, groups, it); }, peer / step, store / step) *
           step;
  return p;
}

// A data-parallel split-K launch through L2 (global_split_reduce, pair_split_reduce): a slot of
// `slot_floats` FP32 sums per unit, then a count per tile, the counts zeroed here (prepare,
// untimed) and never reset by a launch; `plan` points at them.
inline DeviceBuffer global_split_workspace(int64_t units, int slot_floats, int64_t tiles, WorkPlan& plan,
                                           cudaStream_t stream) {
  const size_t slots = static_cast<size_t>(units) * slot_floats * sizeof(float);
  DeviceBuffer buf(slots + static_cast<size_t>(tiles) * sizeof(unsigned long long));
  CUDA_CHECK(cudaMemsetAsync(buf.get<uint8_t>() + slots, 0, buf.bytes() - slots, stream));
  plan.partials = buf.get<float>();
  plan.slot_floats = slot_floats;
  return buf;
}

// A stream-K launch's workspace: a partial-sum slot of `slot_floats` floats and a flag per CTA,
// the flags zeroed here (prepare, untimed) and left zero by every launch; plan() is the kernels'
// WorkPlan over it. The same per-CTA slots and flags serve a data-parallel launch (plan.sk
// empty) whose cut units hand sums from CTA to CTA (group_gemm `persistent`, P125).
struct StreamKWorkspace {
  DeviceBuffer partials, flags;
  WorkPlan plan;
  StreamKWorkspace() = default;
  StreamKWorkspace(int ctas, int slot_floats, cudaStream_t stream)
      : partials(static_cast<size_t>(ctas) * slot_floats * sizeof(float)),
        flags(static_cast<size_t>(ctas) * sizeof(unsigned)) {
    CUDA_CHECK(cudaMemsetAsync(flags.get(), 0, flags.bytes(), stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    plan.slot_floats = slot_floats;
    plan.partials = partials.get<float>();
    plan.flags = flags.get<unsigned>();
  }
  StreamKWorkspace(const StreamK& sk, int slot_floats, cudaStream_t stream)
      : StreamKWorkspace(sk.ctas, slot_floats, stream) {
    plan.sk = sk;
  }
};

// How a launch planned as `lp` shares out its work on `ctas` CTAs, for a runner's plan():
// "T tiles x S K splits on B CTAs" or "T tiles, stream-K: W K steps over P CTAs".
inline std::string work_text(const LaunchPlan& lp, bool stream_k, int64_t ctas) {
  return std::to_string(lp.tiles) + " tiles" +
         (stream_k ? ", stream-K: " + std::to_string(lp.steps) + " K steps over "
                   : " x " + std::to_string(lp.ts.splits) + " K splits on ") +
         std::to_string(ctas) + " CTAs";
}

// Every unit's K steps in the schedulers' order (GEMM, tile, split) for a launch planned as `lp`
// (a unit: one of the ts.splits K ranges of a tile), each scaled by scale(e, t) for tile t of GEMM
// e (its index within the GEMM; called once per tile).
template <class Scale>
std::vector<double> unit_steps(const LaunchPlan& lp, Scale&& scale) {
  std::vector<double> steps;
  const int splits = lp.ts.splits;
  for (const GemmEntry& e : lp.entries) {
    const int64_t tiles = int64_t{e.tiles_t} * e.tiles_n * e.args.l;
    for (int64_t t = 0; t < tiles; ++t) {
      const double f = scale(e, t);
      for (int s = 0; s < splits; ++s)
        steps.push_back(f * split_k_steps(e.k_steps, s, splits));
    }
  }
  return steps;
}

// One of `allowed` forced by environment variable `env`, or "" where it is unset or empty (the
// cost model's pick); anything else is an error that lists them ("a, b or c").
inline std::string forced_choice(const char* env, std::initializer_list<const char*> allowed) {
  const char* v = std::getenv(env);
  const std::string s = v ? v : "";
  if (s.empty()) return s;
  std::string rule;
  size_t i = 0;
  for (const char* a : allowed) {
    if (s == a) return s;
    rule += (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") + std::string(a);
    ++i;
  }
  throw std::invalid_argument(std::string(env) + "=" + s + ": must be " + rule);
}

// A variant's schedule forced by environment variable `env` ("data" or "stream-k"), or "".
inline std::string forced_schedule(const char* env) { return forced_choice(env, {"data", "stream-k"}); }

inline std::vector<GemmArgs> gemm_args_of(const CaseView& c, int nb) {
  std::vector<GemmArgs> v;
  for (const GemmOperands& g : c.groups) v.push_back(make_args(g, nb));
  return v;
}

// The device table of a grouped launch (uploaded in prepare, untimed).
struct EntryTable {
  DeviceBuffer buf;
  EntryTable() = default;
  EntryTable(const std::vector<GemmEntry>& entries, cudaStream_t stream)
      : buf(entries.size() * sizeof(GemmEntry)) {
    CUDA_CHECK(cudaMemcpyAsync(buf.get(), entries.data(), buf.bytes(), cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));  // `entries` may go away
  }
  const GemmEntry* get() const { return buf.get<const GemmEntry>(); }
};

// The scheduler of a planned launch: the one GEMM in the kernel's parameters, or the groups'
// device table (`table`, uploaded from lp.entries).
template <class Sched>
Sched scheduler_for(const LaunchPlan& lp, const EntryTable& table) {
  Sched sched;
  if constexpr (std::is_same_v<Sched, GroupScheduler>) {
    sched.entries = table.get();
    sched.groups = static_cast<int>(lp.entries.size());
    sched.total_tiles = lp.tiles;
  } else {
    sched.e = lp.entries.at(0);
  }
  sched.ts = lp.ts;
  return sched;
}

// The checks every GEMM-family main loop shares: compute capability, its shared memory, K a
// multiple of its step, and the 32-bit tile indices; empty when every GEMM of `s` can run.
inline std::string unsupported_family(const DeviceInfo& dev, const Shape& s, int min_cc, const char* cc_why,
                                      int64_t smem, const char* smem_why, int64_t k_multiple, const char* k_why) {
  if (dev.cc() < min_cc) return cc_why;
  if (smem > dev.smem_per_block_optin) return smem_why;
  for (const Dims& d : s.groups) {
    if (d.k % k_multiple != 0) return k_why;
    if (const char* why = too_large(d.m, d.n, d.k, d.l); *why) return why;
  }
  return "";
}

}  // namespace nvfp4::gemm
