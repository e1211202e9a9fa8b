// SPDX-License-Identifier: Apache-2.0
// calibrate.hpp: measured rates of this GPU, next to the spec table of device_info.hpp, so a
// speed-of-light percentage can be read against what the part actually reaches.
//   hbm_read_gbps       a cold streaming read (16-byte loads, grid-stride) of min(2 GiB, memory/4,
//                       free/2), best of several runs, CUDA events; GB/s = 1e9 bytes/s
//   fp16_tensor_tflops  cuBLASLt FP16 x FP16 -> FP16 GEMM, FP32 compute, TN, 8192^3, random
//                       non-zero inputs, median of several runs
//   fp4_tensor_tflops   cuBLASLt NVFP4 (E2M1, UE4M3 per 16 K-elements) -> BF16 GEMM, 16384^3, on
//                       CC 10.x only; nullopt (with a note) elsewhere or when cuBLASLt refuses
//   decode_wgmma_tflops the ceiling of the Hopper wgmma kernels' own path: e2m1 + e4m3 decode in
//                       registers feeding wgmma m64n128k16 with A from registers (FP16 in, FP32
//                       accumulate), B from shared memory, no global-memory traffic; the kernels'
//                       CTA shape (2 consumer warpgroups of 64 weight rows x 128 tokens), one CTA
//                       per SM, median of several runs. CC 9.0 only (wgmma is sm_90a machine
//                       code); nullopt (with a note) elsewhere or when the launch fails
//   wgmma_rs_tflops     the same loop with fixed A registers (no decode): decode_wgmma_tflops /
//                       wgmma_rs_tflops is what the decode leaves of the wgmma rate
//   decode_mma_tflops   the ceiling of the `tensor-core` kernels' own path: their main loop's code
//                       (decode in registers into A fragments, ldmatrix of the tokens, mma.sync
//                       m16n8k16 FP16 -> FP32) on their CTA (4 warps of 32 weight rows x 128 tokens)
//                       at their occupancy, over stages filled once in shared memory: no copies,
//                       no barriers, no global-memory traffic. CC 8.0 and newer; nullopt (with a
//                       note) elsewhere or when the launch fails
//   mma_sync_tflops     the same loop with the A fragments decoded once (ldmatrix and mma.sync only)
// Clocks are left as they are: the numbers are at whatever clocks the GPU runs. Every timed launch
// follows 100 ms of idle (back to back, launches of several milliseconds of full load hold a board
// at its power cap, which the benchmarks' short kernels never reach: docs/perf-notes.md P190) and
// is enqueued behind a 200 us spin kernel (so the host's launch latency after the idle is not
// timed, P191); NVML's clock-event reasons are read after it; each rate's note says how many ran
// throttled.
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
  std::optional<double> decode_wgmma_tflops;
  std::optional<double> wgmma_rs_tflops;
  std::optional<double> decode_mma_tflops;
  std::optional<double> mma_sync_tflops;
  std::string notes;  // what was measured and how, one clause per rate; why an optional rate is absent
};

// Runs on the current device (dev describes it) and enqueues on `s`; takes ~10 s (every timed launch
// follows 100 ms of idle, so that none runs under the board's power cap: calibrate.cu, kPaceMs).
// Throws CudaError / std::runtime_error when the HBM or FP16 measurement fails; a failure of an
// optional rate is only noted (unless it loses the context).
Calibration calibrate(const DeviceInfo& dev, cudaStream_t s);

}  // namespace nvfp4
