// SPDX-License-Identifier: Apache-2.0
// random_operands.cuh: hashed, non-zero operands for the measurement loops that need no
// reproducible case data (measure/calibrate.cu's rates, kernels/common/mma_ceiling.cu): a pure
// function of (index, seed), so the tensor cores (and the power draw) do real work.
#pragma once

#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>

namespace nvfp4 {

// Random FP16 in +-[1/64, 1).
__device__ __forceinline__ __half random_half(size_t i, uint32_t seed) {
  uint32_t h = uint32_t(i) * 0x9e3779b1u ^ uint32_t(i >> 32) * 0x85ebca77u ^ seed;
  h ^= h >> 15;
  h *= 0x2c1b3c6du;
  h ^= h >> 12;
  h *= 0x297a2d39u;
  h ^= h >> 15;
  const float mag = 1.0f / 64 + float(h & 0xffff) * (1.0f - 1.0f / 64) / 65536.0f;
  return __float2half((h & 0x10000u) ? -mag : mag);
}

// A random byte (any byte is two finite E2M1 values).
__device__ __forceinline__ uint8_t random_byte(size_t i, uint32_t seed) {
  uint32_t h = uint32_t(i) * 0x9e3779b1u ^ seed;
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  return uint8_t(h);
}

// A random E4M3 scale in 0x30..0x3F (0.5 to 1.875: finite, non-zero).
__device__ __forceinline__ uint8_t random_scale(size_t i, uint32_t seed) {
  return uint8_t(0x30u | (random_byte(i, seed) & 0x0Fu));
}

}  // namespace nvfp4
