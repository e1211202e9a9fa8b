// SPDX-License-Identifier: Apache-2.0
#include "measure/timing.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <memory>

#include "measure/cupti_timer.hpp"
#include "measure/stop_rule.hpp"

namespace nvfp4 {

namespace {

// Reads the flush buffer with 16-byte loads; the XOR is stored only if it equals a value the
// buffer (all zeros) never produces, so the loads stay.
__global__ void l2_read_flush(const uint4* __restrict__ buf, int64_t n16, unsigned* sink) {
  unsigned acc = 0;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n16; i += int64_t{gridDim.x} * blockDim.x) {
    const uint4 v = buf[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0xFFFFFFFFu) *sink = acc;
}

int flush_multiple() {
  const char* e = std::getenv("NVFP4_L2_FLUSH_X");
  return e ? std::max(1, std::atoi(e)) : 2;
}

std::string flush_mode() {
  const char* e = std::getenv("NVFP4_L2_FLUSH");
  return e ? e : "read";
}

}  // namespace

L2Flusher::L2Flusher(int64_t l2_bytes) : m_buf(static_cast<size_t>(flush_multiple() * l2_bytes) + 256) {
  CUDA_CHECK(cudaMemset(m_buf.get(), 0, m_buf.bytes()));
  CUDA_CHECK(cudaDeviceSynchronize());
}

void L2Flusher::flush(cudaStream_t stream) {
  static const std::string mode = flush_mode();
  if (mode == "write" || mode == "both") CUDA_CHECK(cudaMemsetAsync(m_buf.get(), 0, m_buf.bytes() - 256, stream));
  if (mode == "write") return;
  // Reading two L2 sizes of clean data evicts what the previous call left in L2, and the
  // write-backs of its dirty lines happen here rather than inside the next timed call (a memset
  // flush would leave L2 full of dirty lines). This matches Nsight Compute's cache flush better.
  const int64_t n16 = static_cast<int64_t>(m_buf.bytes() - 256) / 16;
  l2_read_flush<<<1024, 512, 0, stream>>>(m_buf.get<uint4>(), n16,
                                           reinterpret_cast<unsigned*>(m_buf.get<char>() + m_buf.bytes() - 256));
  CUDA_CHECK_LAUNCH();
}

namespace {

// A CUDA graph of the batch's calls, captured once.
class CapturedBatch {
 public:
  CapturedBatch(const std::vector<Runner*>& runners, cudaStream_t s) {
    CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    try {
      for (Runner* r : runners) r->run(s);
    } catch (...) {
      cudaGraph_t g = nullptr;
      cudaStreamEndCapture(s, &g);
      if (g) cudaGraphDestroy(g);
      throw;
    }
    CUDA_CHECK(cudaStreamEndCapture(s, &m_graph));
    CUDA_CHECK(cudaGraphInstantiate(&m_exec, m_graph, 0));
  }
  ~CapturedBatch() {
    if (m_exec) CUDA_CHECK_NOEXCEPT(cudaGraphExecDestroy(m_exec));
    if (m_graph) CUDA_CHECK_NOEXCEPT(cudaGraphDestroy(m_graph));
  }
  CapturedBatch(const CapturedBatch&) = delete;
  CapturedBatch& operator=(const CapturedBatch&) = delete;
  void launch(cudaStream_t s) { CUDA_CHECK(cudaGraphLaunch(m_exec, s)); }

 private:
  cudaGraph_t m_graph = nullptr;
  cudaGraphExec_t m_exec = nullptr;
};

std::optional<ClockSample> read_clocks(int device) {
  Nvml& nvml = Nvml::instance();
  return nvml.available() ? nvml.sample(device) : std::nullopt;
}

}  // namespace

TimingResult time_runners(const std::vector<Runner*>& runners, const TimingOptions& opt, L2Flusher& flusher,
                          cudaStream_t stream, int cuda_device) {
  TimingResult res;
  res.timer = opt.timer;
  res.l2 = opt.l2;
  res.batch = static_cast<int>(runners.size());
  const double per_call = 1.0 / double(runners.size());

  std::unique_ptr<CapturedBatch> graph;
  std::unique_ptr<CuptiKernelTimer> cupti;
  if (opt.timer == TimerKind::graph) graph = std::make_unique<CapturedBatch>(runners, stream);
  if (opt.timer == TimerKind::cupti) cupti = std::make_unique<CuptiKernelTimer>();
  auto enqueue_batch = [&] {
    if (graph) graph->launch(stream);
    else
      for (Runner* r : runners) r->run(stream);
  };

  res.clocks.before = read_clocks(cuda_device);
  if (!res.clocks.before) res.clocks.note = Nvml::instance().unavailable_reason();
  for (int i = 0; i < opt.warmup; ++i) enqueue_batch();
  CUDA_CHECK(cudaStreamSynchronize(stream));
  if (const auto c = read_clocks(cuda_device); c && c->sm_mhz > 0) {
    res.clocks.reference_sm_mhz = c->sm_mhz;
    res.clocks.throttled_samples = 0;
    res.clocks.min_sm_mhz = c->sm_mhz;
  }

  Event start, stop;
  const auto t0 = std::chrono::steady_clock::now();
  while (true) {
    if (opt.l2 == L2Mode::cold) flusher.flush(stream);
    double us;
    if (cupti) {
      cupti->begin();  // waits for the flush; only the calls' GPU work is counted
      enqueue_batch();
      us = cupti->end_us(stream);
    } else {
      start.record(stream);
      enqueue_batch();
      stop.record(stream);
      CUDA_CHECK(cudaEventSynchronize(stop.get()));
      us = 1000.0 * stop.since(start);
    }
    res.samples_us.push_back(us * per_call);
    if (res.clocks.reference_sm_mhz > 0) {
      if (const auto c = read_clocks(cuda_device); c && c->sm_mhz > 0) {
        if (sample_throttled(*c, res.clocks.reference_sm_mhz)) ++res.clocks.throttled_samples;
        res.clocks.min_sm_mhz = std::min(res.clocks.min_sm_mhz, c->sm_mhz);
      }
    }

    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const StopCheck check = check_stop(res.samples_us, wall, opt);
    if (check.stop) {
      res.stop_reason = check.reason;
      break;
    }
    if (check.held_by_outliers) ++res.extra_samples;
  }
  res.clocks.after = read_clocks(cuda_device);
  res.stats = summarize(res.samples_us);
  return res;
}

}  // namespace nvfp4
