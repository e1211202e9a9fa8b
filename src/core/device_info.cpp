// SPDX-License-Identifier: Apache-2.0
#include "core/device_info.hpp"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <array>

#include "core/cuda_check.hpp"

namespace nvfp4 {

namespace {

struct SolEntry {
  const char* match;  // substring of the device name (first match wins)
  double tb_per_s;    // spec HBM bandwidth
  double tflops;      // spec dense rate of the exact path (FP16 tensor on Hopper, FP4 on Blackwell)
  const char* kind;
};

// Datasheet figures (dense, no sparsity). Order matters: more specific names first.
constexpr std::array<SolEntry, 9> kSolTable{{
    {"GB300", 8.0, 15000, "fp4-tensor"},
    {"B300", 8.0, 13500, "fp4-tensor"},
    {"GB200", 8.0, 10000, "fp4-tensor"},
    {"B200", 8.0, 9000, "fp4-tensor"},
    {"RTX 5090", 1.792, 1676, "fp4-tensor"},
    {"H200", 4.8, 989, "fp16-tensor"},
    {"H100 PCIe", 2.0, 756, "fp16-tensor"},
    {"H100 NVL", 3.9, 835, "fp16-tensor"},
    {"H100", 3.35, 989, "fp16-tensor"},
}};

}  // namespace

std::optional<SolRates> sol_rates_for(const std::string& device_name, int /*cc*/) {
  for (const SolEntry& e : kSolTable)
    if (device_name.find(e.match) != std::string::npos)
      return SolRates{e.match, e.tb_per_s * 1e12, e.tflops * 1e12, e.kind};
  return std::nullopt;
}

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

DeviceInfo query_device(int index) {
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, index));
  DeviceInfo d;
  d.index = index;
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sms = p.multiProcessorCount;
  d.l2_bytes = p.l2CacheSize;
  d.mem_bytes = static_cast<int64_t>(p.totalGlobalMem);
  d.smem_per_block_optin = static_cast<int64_t>(p.sharedMemPerBlockOptin);
  d.mem_bus_bits = p.memoryBusWidth;
  CUDA_CHECK(cudaDeviceGetAttribute(&d.sm_clock_khz, cudaDevAttrClockRate, index));
  CUDA_CHECK(cudaDeviceGetAttribute(&d.mem_clock_khz, cudaDevAttrMemoryClockRate, index));
  CUDA_CHECK(cudaDriverGetVersion(&d.driver_version));
  CUDA_CHECK(cudaRuntimeGetVersion(&d.runtime_version));
  d.cublaslt_version = cublasLtGetVersion();
  return d;
}

}  // namespace nvfp4
