// SPDX-License-Identifier: Apache-2.0
// device_info.hpp: what the tool knows about the GPU it runs on, and its speed-of-light rates.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace nvfp4 {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sms = 0;
  int64_t l2_bytes = 0;
  int64_t mem_bytes = 0;
  int64_t smem_per_block_optin = 0;
  int sm_clock_khz = 0;   // cudaDevAttrClockRate (max boost)
  int mem_clock_khz = 0;  // cudaDevAttrMemoryClockRate
  int mem_bus_bits = 0;
  int driver_version = 0;
  int runtime_version = 0;
  size_t cublaslt_version = 0;
  int cc() const { return cc_major * 10 + cc_minor; }
};

// Spec rates used for the speed of light. Hopper: dense FP16 tensor-core rate (the exact NVFP4
// path there); Blackwell: dense FP4 rate.
struct SolRates {
  std::string gpu;          // table entry that matched
  double hbm_bytes_per_s;   // spec HBM bandwidth
  double flops_per_s;       // spec dense rate of the exact NVFP4 path on this GPU
  std::string flops_kind;   // "fp16-tensor" or "fp4-tensor"
};

// Matches the device name against the spec table; nullopt for an unknown GPU.
std::optional<SolRates> sol_rates_for(const std::string& device_name, int cc);

// Queries device `index`. Throws CudaError when there is no usable device.
DeviceInfo query_device(int index);
// Number of CUDA devices, 0 (not an error) when there is no driver or no GPU.
int device_count();

}  // namespace nvfp4
