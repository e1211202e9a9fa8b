// SPDX-License-Identifier: Apache-2.0
// timing.hpp: the measurement loop. Measurement never checks results; reporting never measures.
//
// events timer (default): per sample, flush L2 (cold mode), record an event, one call of the
// runner, record an event; the sample is the elapsed GPU time between the events. Sampling stops
// (gpu-mode rule, PROBLEMS.md section 4) once at least min_samples samples and min_time_s of
// sampling are done and the relative standard error of the mean is below target_rse, or when the
// per-case time budget max_time_s or max_samples is reached.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <string_view>
#include <vector>

#include "device_buffer.hpp"
#include "stats.hpp"
#include "variant.hpp"

namespace nvfp4 {

enum class L2Mode { cold, warm };
std::string_view to_string(L2Mode m);
bool parse_l2(std::string_view s, L2Mode& out);

struct TimingOptions {
  L2Mode l2 = L2Mode::cold;
  int warmup = 3;            // untimed calls first
  int min_samples = 10;
  int max_samples = 1000;
  double min_time_s = 0.1;   // gpu-mode: at least 100 ms of sampling before the noise rule applies
  double max_time_s = 2.0;   // per-case budget
  double target_rse = 0.001; // relative standard error of the mean (gpu-mode: 0.1 %)
};

struct TimingResult {
  std::string timer = "events";
  L2Mode l2 = L2Mode::cold;
  int batch = 1;
  SampleStats stats;                // microseconds
  std::vector<double> samples_us;   // every sample, in order
  std::string stop_reason;          // "rse", "time budget", "max samples"
};

// Writes an L2-sized buffer before each cold sample (nvbench l2flush idea).
class L2Flusher {
 public:
  explicit L2Flusher(int64_t l2_bytes);
  void flush(cudaStream_t stream);

 private:
  DeviceBuffer m_buf;
};

TimingResult time_runner(Runner& runner, const TimingOptions& opt, L2Flusher& flusher, cudaStream_t stream);

}  // namespace nvfp4
