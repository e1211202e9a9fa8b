// SPDX-License-Identifier: Apache-2.0
// rng.hpp: Philox4x32-10 (Salmon et al., "Parallel Random Numbers: As Easy as 1, 2, 3", SC'11),
// a counter-based generator: the output depends only on (key, counter), so a value is a pure
// function of (seed, tensor id, element index), whatever the launch configuration.
#pragma once

#include <cstdint>

#include "core/nvfp4.hpp"

namespace nvfp4 {

struct Philox4 {
  uint32_t v[4];
};

NVFP4_HD uint32_t mulhilo32(uint32_t a, uint32_t b, uint32_t& hi) {
  const uint64_t p = static_cast<uint64_t>(a) * b;
  hi = static_cast<uint32_t>(p >> 32);
  return static_cast<uint32_t>(p);
}

NVFP4_HD Philox4 philox4x32_10(uint64_t key64, uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3) {
  uint32_t k0 = static_cast<uint32_t>(key64), k1 = static_cast<uint32_t>(key64 >> 32);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int r = 0; r < 10; ++r) {
    uint32_t hi0, hi1;
    const uint32_t lo0 = mulhilo32(0xD2511F53u, c0, hi0);
    const uint32_t lo1 = mulhilo32(0xCD9E8D57u, c2, hi1);
    const uint32_t n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0;
    c1 = lo1;
    c2 = n2;
    c3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return Philox4{{c0, c1, c2, c3}};
}

// Four 32-bit draws for elements 4*q .. 4*q+3 of tensor `tensor_id`.
NVFP4_HD Philox4 draw4(uint64_t seed, uint32_t tensor_id, uint64_t q) {
  return philox4x32_10(seed, static_cast<uint32_t>(q), static_cast<uint32_t>(q >> 32), tensor_id, 0x6E766634u);
}

NVFP4_HD uint32_t draw1(uint64_t seed, uint32_t tensor_id, uint64_t index) {
  return draw4(seed, tensor_id, index / 4).v[index % 4];
}

}  // namespace nvfp4
