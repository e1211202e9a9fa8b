// SPDX-License-Identifier: Apache-2.0
// timing.hpp: the measurement loop. Measurement never checks results; reporting never measures.
//
// A sample is one "batch": the L2 flush (cold mode), then the runners' calls back to back, one
// call per distinct input set (--batch N: N sets, gpu-mode's method; default 1). The per-call time
// is the sample's time / N. Timers:
//   events  CUDA events recorded around the calls (includes launch gaps and launch latency)
//   cupti   sum of the GPU durations of the kernels/memsets the calls launched (CUPTI activity
//           records; launch gaps excluded)
//   graph   the N calls captured once in a CUDA graph; events around each graph launch
// Sampling stops by gpu-mode's rule (PROBLEMS.md section 4) with outliers set aside
// (stop_rule.hpp): once at least min_samples samples and min_time_s of sampling are done and the
// relative standard error of the mean is below target_rse, or when the per-case time budget
// max_time_s or max_samples is reached; outliers (stats.hpp) earn extra samples within max_time_s.
// Clocks: NVML is read before and after the case and after every sample; samples taken below 90%
// of the SM clock read after warm-up are counted as throttled (never discarded, never changed).
#pragma once

#include <cuda_runtime.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/device_buffer.hpp"
#include "core/variant.hpp"
#include "measure/nvml.hpp"
#include "measure/stats.hpp"

namespace nvfp4 {

enum class L2Mode { cold, warm };
std::string_view to_string(L2Mode m);
bool parse_l2(std::string_view s, L2Mode& out);

enum class TimerKind { events, cupti, graph };
std::string_view to_string(TimerKind t);
bool parse_timer(std::string_view s, TimerKind& out);

struct TimingOptions {
  TimerKind timer = TimerKind::events;
  int batch = 1;             // distinct input sets per sample
  L2Mode l2 = L2Mode::cold;
  int warmup = 3;            // untimed samples first
  int min_samples = 10;
  int max_samples = 1000;
  double min_time_s = 0.1;   // gpu-mode: at least 100 ms of sampling before the noise rule applies
  double max_time_s = 2.0;   // per-case budget
  double target_rse = 0.001; // relative standard error of the mean (gpu-mode: 0.1 %)
};

struct ClockRecord {
  std::optional<ClockSample> before, after;  // nullopt: NVML unavailable
  int reference_sm_mhz = -1;                  // SM clock after warm-up (the 90 % rule's base)
  int throttled_samples = -1;                 // samples below 90 % of it or under a clock-lowering
                                              // NVML reason (sample_throttled); -1 = clocks unknown
  int min_sm_mhz = -1;                        // lowest SM clock read after a sample
  std::string note;                           // "clocks: unknown (...)" when NVML is missing
};

struct TimingResult {
  TimerKind timer = TimerKind::events;
  L2Mode l2 = L2Mode::cold;
  int batch = 1;
  SampleStats stats;                // microseconds per call
  std::vector<double> samples_us;   // every sample (per call), in order
  std::string stop_reason;          // "rse", "time budget", "max samples"
  int extra_samples = 0;            // taken only because of outliers (stop_rule.hpp)
  ClockRecord clocks;
};

// Before each cold sample, reads a clean buffer of twice the L2 size (see timing.cu).
// Experiment knobs (environment): NVFP4_L2_FLUSH=read|write|both (default read: write = memset,
// both = memset then read), NVFP4_L2_FLUSH_X = buffer size in L2 sizes (default 2). On an H200
// the read flush and the memset+read flush gave the same times; the memset-only flush made a
// streaming cuBLASLt GEMV 14 % slower (dirty-line write-backs inside the timed call).
class L2Flusher {
 public:
  explicit L2Flusher(int64_t l2_bytes);
  void flush(cudaStream_t stream);

 private:
  DeviceBuffer m_buf;
};

// Times the calls of `runners` (one per distinct input set; runners.size() is the batch).
TimingResult time_runners(const std::vector<Runner*>& runners, const TimingOptions& opt, L2Flusher& flusher,
                          cudaStream_t stream, int cuda_device);

}  // namespace nvfp4
