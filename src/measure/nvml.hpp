// SPDX-License-Identifier: Apache-2.0
// nvml.hpp: read-only NVML queries (clocks, temperature, power, clock-event reasons) for the run's
// metadata and for throttle checks. libnvidia-ml.so.1 is loaded with dlopen at run time, so the
// tool builds without nvml.h and runs where the library is absent (available() is then false).
// Nothing here changes clocks or any other device setting.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace nvfp4 {

struct ClockSample {
  int sm_mhz = -1;        // current SM clock; -1 where NVML did not answer
  int mem_mhz = -1;       // current memory clock
  int temp_c = -1;        // GPU core temperature
  double power_w = -1;    // board power draw
  uint64_t throttle_reasons = 0;  // nvmlClocksEventReason* bit mask; 0 = none (or not reported)
};

// Names of the set bits of an NVML clock-event (throttle) mask, comma separated ("none" for 0).
// GpuIdle and ApplicationsClocksSetting are listed too; is_throttled() ignores them.
std::string describe_throttle_reasons(uint64_t mask);
// True when a reason that lowers clocks under load is set: power cap, thermal or hardware slowdown,
// sync boost, power brake.
bool is_throttled(uint64_t mask);
// The sampling loop's rule (measure/timing.cu): a sample is throttled when the SM clock read after
// it is below 90 % of `reference_sm_mhz` (the clock after warm-up; <= 0: unknown, this part is
// skipped) or NVML reports a reason that lowers clocks under load (is_throttled). The reason is
// needed as well: under the power cap an H200 ran a loop ~11 % slower while single clock reads
// showed 1785-1965 MHz against 1980 (docs/perf-notes.md P190).
bool sample_throttled(const ClockSample& c, int reference_sm_mhz);

class Nvml {
 public:
  /** The process-wide instance; the first call loads the library and calls nvmlInit_v2. */
  static Nvml& instance();

  /** True when the library loaded and nvmlInit_v2 succeeded. */
  bool available() const { return m_ok; }
  /** Empty when available(), else e.g. "clocks: unknown (libnvidia-ml.so.1 not found)". */
  std::string unavailable_reason() const { return m_reason; }

  /**
   * Current clocks, temperature, power and clock-event reasons of CUDA device `cuda_device`
   * (mapped to NVML through its PCI bus id, so CUDA_VISIBLE_DEVICES is respected). nullopt when
   * NVML is unavailable, the device is not found or its SM clock cannot be read; other fields that
   * cannot be read are left at -1 (0 for the reasons).
   */
  std::optional<ClockSample> sample(int cuda_device);

  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

 private:
  Nvml();
  ~Nvml();

  struct Api;
  Api* m_api = nullptr;
  void* m_lib = nullptr;
  bool m_ok = false;
  std::string m_reason;
};

}  // namespace nvfp4
