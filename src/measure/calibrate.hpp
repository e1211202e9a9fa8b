// SPDX-License-Identifier: Apache-2.0
// calibrate.hpp: measured rates of this GPU, next to the spec table of device_info.hpp, so a
// speed-of-light percentage can be read against what the part actually reaches.
//   hbm_read_gbps       a cold streaming read (16-byte loads, grid-stride) of min(2 GiB, memory/4,
//                       free/2), best of several runs, CUDA events; GB/s = 1e9 bytes/s
//   fp16_tensor_tflops  cuBLASLt FP16 x FP16 -> FP16 GEMM, FP32 compute, TN, 8192^3, random
//                       non-zero inputs, median of several runs
//   fp4_tensor_tflops   cuBLASLt NVFP4 (E2M1, UE4M3 per 16 K-elements) -> BF16 GEMM, 16384^3, on
//                       CC 10.x only; nullopt (with a note) elsewhere or when cuBLASLt refuses
// Clocks are left as they are: the numbers are at whatever clocks the GPU runs.
#pragma once

#include <cuda_runtime.h>

#include <optional>
#include <string>

#include "core/device_info.hpp"

namespace nvfp4 {

struct Calibration {
  double hbm_read_gbps = 0;
  double fp16_tensor_tflops = 0;
  std::optional<double> fp4_tensor_tflops;
  std::string notes;  // what was measured and how, one clause per rate; why fp4 is absent
};

// Runs on the current device (dev describes it) and enqueues on `s`; takes about a second.
// Throws CudaError / std::runtime_error when the HBM or FP16 measurement fails; an FP4 failure is
// only noted.
Calibration calibrate(const DeviceInfo& dev, cudaStream_t s);

}  // namespace nvfp4
