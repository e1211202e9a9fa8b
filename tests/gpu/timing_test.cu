// SPDX-License-Identifier: Apache-2.0
// The timers against a kernel that spins for a known time (%globaltimer, nanoseconds): each
// timer must report that time per call, for a single call and for a batch.
#include <gtest/gtest.h>

#include <cstdio>

#include "core/device_buffer.hpp"
#include "core/device_info.hpp"
#include "measure/timing.hpp"

using namespace nvfp4;

namespace {

__global__ void spin_kernel(uint64_t ns, int* sink) {
  uint64_t start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
  if (threadIdx.x == 0 && now == 0) *sink = 1;  // never true; keeps the loop
}

class SpinRunner : public Runner {
 public:
  explicit SpinRunner(uint64_t ns) : m_ns(ns), m_sink(sizeof(int)) {}
  void run(cudaStream_t s) override {
    spin_kernel<<<1, 32, 0, s>>>(m_ns, m_sink.get<int>());
    CUDA_CHECK_LAUNCH();
  }

 private:
  uint64_t m_ns;
  DeviceBuffer m_sink;
};

double measure(TimerKind timer, int batch, uint64_t ns) {
  const DeviceInfo dev = query_device(0);
  Stream stream;
  L2Flusher flusher(dev.l2_bytes);
  std::vector<SpinRunner> runners;
  runners.reserve(static_cast<size_t>(batch));
  std::vector<Runner*> ptrs;
  for (int i = 0; i < batch; ++i) {
    runners.emplace_back(ns);
    ptrs.push_back(&runners.back());
  }
  TimingOptions opt;
  opt.timer = timer;
  opt.warmup = 2;
  opt.min_samples = 10;
  opt.max_samples = 20;
  opt.min_time_s = 0.01;
  const TimingResult r = time_runners(ptrs, opt, flusher, stream.get(), 0);
  EXPECT_EQ(r.batch, batch);
  EXPECT_GE(r.stats.n, 10);
  std::printf("spin %llu ns, batch %d, timer %s: median %.3f us per call\n", static_cast<unsigned long long>(ns),
              batch, to_string(timer).data(), r.stats.median);
  return r.stats.median;
}

}  // namespace

// The spin lasts `ns`; the globaltimer ticks coarsely (~1 us on some parts), and the events timer
// also sees launch latency, hence the tolerances.
TEST(Timers, EventsSeeTheSpin) {
  const double us = measure(TimerKind::events, 1, 200'000);
  EXPECT_GT(us, 195.0);
  EXPECT_LT(us, 230.0);
}

TEST(Timers, CuptiSeesTheKernelTimeOnly) {
  const double us = measure(TimerKind::cupti, 1, 200'000);
  EXPECT_GT(us, 195.0);
  EXPECT_LT(us, 210.0);
  const double batched = measure(TimerKind::cupti, 4, 100'000);  // per call
  EXPECT_GT(batched, 97.0);
  EXPECT_LT(batched, 106.0);
}

TEST(Timers, GraphReplaysTheBatch) {
  const double us = measure(TimerKind::graph, 1, 200'000);
  EXPECT_GT(us, 195.0);
  EXPECT_LT(us, 230.0);
  const double batched = measure(TimerKind::graph, 5, 100'000);  // per call
  EXPECT_GT(batched, 97.0);
  EXPECT_LT(batched, 110.0);
}

TEST(Timers, ShortKernelCuptiBelowEvents) {
  // A 5 us kernel: events add launch latency, CUPTI does not.
  const double ev = measure(TimerKind::events, 1, 5'000);
  const double cu = measure(TimerKind::cupti, 1, 5'000);
  EXPECT_GT(cu, 4.5);
  EXPECT_LT(cu, ev);
}
