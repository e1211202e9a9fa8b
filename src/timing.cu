// SPDX-License-Identifier: Apache-2.0
#include "timing.hpp"

#include <chrono>

namespace nvfp4 {

L2Flusher::L2Flusher(int64_t l2_bytes) : m_buf(static_cast<size_t>(2 * l2_bytes)) {}

void L2Flusher::flush(cudaStream_t stream) {
  // Two L2 sizes of writes evict everything the previous call left in L2.
  CUDA_CHECK(cudaMemsetAsync(m_buf.get(), 0, m_buf.bytes(), stream));
}

TimingResult time_runner(Runner& runner, const TimingOptions& opt, L2Flusher& flusher, cudaStream_t stream) {
  TimingResult res;
  res.l2 = opt.l2;
  for (int i = 0; i < opt.warmup; ++i) runner.run(stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));

  Event start, stop;
  const auto t0 = std::chrono::steady_clock::now();
  while (true) {
    if (opt.l2 == L2Mode::cold) flusher.flush(stream);
    start.record(stream);
    runner.run(stream);
    stop.record(stream);
    CUDA_CHECK(cudaEventSynchronize(stop.get()));
    res.samples_us.push_back(1000.0 * stop.since(start));

    const int n = static_cast<int>(res.samples_us.size());
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (n >= opt.max_samples) {
      res.stop_reason = "max samples";
      break;
    }
    if (wall >= opt.max_time_s) {
      res.stop_reason = "time budget";
      break;
    }
    if (n >= opt.min_samples && wall >= opt.min_time_s && summarize(res.samples_us).rse < opt.target_rse) {
      res.stop_reason = "rse";
      break;
    }
  }
  res.stats = summarize(res.samples_us);
  return res;
}

}  // namespace nvfp4
