// SPDX-License-Identifier: Apache-2.0
#include "measure/nvml.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <map>
#include <type_traits>

namespace nvfp4 {

namespace {

// The few NVML declarations we use, from the documented C API (nvml.h is not needed to build).
// Enums are passed as int, which is their ABI.
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr int kClockSm = 1;       // NVML_CLOCK_SM
constexpr int kClockMem = 2;      // NVML_CLOCK_MEM
constexpr int kTempSensorGpu = 0; // NVML_TEMPERATURE_GPU

// nvmlClocksEventReason* / nvmlClocksThrottleReason* bits.
struct ReasonBit {
  uint64_t bit;
  const char* name;
  bool throttles;  // lowers clocks under load
};
constexpr ReasonBit kReasons[] = {
    {0x1, "GpuIdle", false},
    {0x2, "ApplicationsClocksSetting", false},
    {0x4, "SwPowerCap", true},
    {0x8, "HwSlowdown", true},
    {0x10, "SyncBoost", true},
    {0x20, "SwThermalSlowdown", true},
    {0x40, "HwThermalSlowdown", true},
    {0x80, "HwPowerBrakeSlowdown", true},
    {0x100, "DisplayClockSetting", false},
};

}  // namespace

struct Nvml::Api {
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*by_pci)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*by_index)(unsigned, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*power)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*reasons)(nvmlDevice_t, unsigned long long*) = nullptr;  // optional
  std::map<int, nvmlDevice_t> handles;  // CUDA ordinal -> NVML handle
};

std::string describe_throttle_reasons(uint64_t mask) {
  if (mask == 0) return "none";
  std::string s;
  uint64_t known = 0;
  for (const auto& r : kReasons) {
    known |= r.bit;
    if (mask & r.bit) s += (s.empty() ? "" : ",") + std::string(r.name);
  }
  if (mask & ~known) s += (s.empty() ? "" : ",") + fmt::format("0x{:x}", mask & ~known);
  return s;
}

bool is_throttled(uint64_t mask) {
  for (const auto& r : kReasons)
    if (r.throttles && (mask & r.bit)) return true;
  return false;
}

bool sample_throttled(const ClockSample& c, int reference_sm_mhz) {
  const bool slow = reference_sm_mhz > 0 && c.sm_mhz > 0 && c.sm_mhz < 0.9 * reference_sm_mhz;
  return slow || is_throttled(c.throttle_reasons);
}

Nvml& Nvml::instance() {
  static Nvml nvml;
  return nvml;
}

Nvml::Nvml() {
  m_lib = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!m_lib) {
    m_reason = "clocks: unknown (libnvidia-ml.so.1 not found)";
    return;
  }
  auto api = new Api;
  std::string missing;
  auto load = [&](auto& fn, const char* name, bool required = true) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(m_lib, name));
    if (!fn && required && missing.empty()) missing = name;
  };
  load(api->init, "nvmlInit_v2");
  load(api->shutdown, "nvmlShutdown");
  load(api->error_string, "nvmlErrorString");
  load(api->by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
  load(api->by_index, "nvmlDeviceGetHandleByIndex_v2");
  load(api->clock, "nvmlDeviceGetClockInfo");
  load(api->temperature, "nvmlDeviceGetTemperature", false);
  load(api->power, "nvmlDeviceGetPowerUsage", false);
  load(api->reasons, "nvmlDeviceGetCurrentClocksEventReasons", false);
  if (!api->reasons) load(api->reasons, "nvmlDeviceGetCurrentClocksThrottleReasons", false);
  if (!missing.empty()) {
    m_reason = fmt::format("clocks: unknown (libnvidia-ml.so.1 lacks {})", missing);
    delete api;
    ::dlclose(m_lib);
    m_lib = nullptr;
    return;
  }
  const nvmlReturn_t rc = api->init();
  if (rc != kNvmlSuccess) {
    m_reason = fmt::format("clocks: unknown (nvmlInit_v2 failed: {})", api->error_string(rc));
    delete api;
    ::dlclose(m_lib);
    m_lib = nullptr;
    return;
  }
  m_api = api;
  m_ok = true;
}

Nvml::~Nvml() {
  // Static destruction: shut NVML down but keep the library mapped (other static destructors or
  // atexit handlers may still run code from it).
  if (m_api) {
    m_api->shutdown();
    delete m_api;
  }
}

std::optional<ClockSample> Nvml::sample(int cuda_device) {
  if (!m_ok) return std::nullopt;

  auto it = m_api->handles.find(cuda_device);
  if (it == m_api->handles.end()) {
    nvmlDevice_t dev = nullptr;
    char bus_id[64] = {};
    if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, cuda_device) == cudaSuccess) {
      if (m_api->by_pci(bus_id, &dev) != kNvmlSuccess) dev = nullptr;
    } else {
      cudaGetLastError();  // clear the non-sticky error; fall back to the NVML index
      if (cuda_device < 0 || m_api->by_index(static_cast<unsigned>(cuda_device), &dev) != kNvmlSuccess) dev = nullptr;
    }
    if (!dev) return std::nullopt;
    it = m_api->handles.emplace(cuda_device, dev).first;
  }
  nvmlDevice_t dev = it->second;

  ClockSample s;
  unsigned v = 0;
  if (m_api->clock(dev, kClockSm, &v) != kNvmlSuccess) return std::nullopt;
  s.sm_mhz = static_cast<int>(v);
  if (m_api->clock(dev, kClockMem, &v) == kNvmlSuccess) s.mem_mhz = static_cast<int>(v);
  if (m_api->temperature && m_api->temperature(dev, kTempSensorGpu, &v) == kNvmlSuccess) s.temp_c = static_cast<int>(v);
  if (m_api->power && m_api->power(dev, &v) == kNvmlSuccess) s.power_w = v / 1000.0;
  unsigned long long mask = 0;
  if (m_api->reasons && m_api->reasons(dev, &mask) == kNvmlSuccess) s.throttle_reasons = mask;
  return s;
}

}  // namespace nvfp4
