// SPDX-License-Identifier: Apache-2.0
// divisor.hpp: division by a value fixed at launch, by a multiply and a shift (host and device).
//
// The schedulers cut a CTA's unit number into tile, token tile, weight tile, batch and K split by
// launch values (tiles_t, tiles_n, splits, k_steps). A 32-bit division by a runtime value is ~20
// dependent instructions with a reciprocal on the slow pipe; every issuing thread and consumer runs
// several in a chain before its first copy or wait (docs/perf-notes.md P51, P53). A Divisor holds
// the value and, computed once on the host, the multiplier and shift that give the same quotient
// for every dividend in [0, 2^31) (Granlund and Montgomery, "Division by invariant integers using
// multiplication", PLDI 1994, fig. 4.1): with l = ceil(log2 d) and m = floor(2^32 (2^l - d) / d) + 1,
// n / d = (mulhi(n, m) + n) >> l; below 2^31 the sum cannot overflow 32 bits.
// It converts to int, so code that only reads the value is unchanged. Divisors are at least 1:
// every launch value is (problem.cpp rejects non-positive dimensions; counts of tiles and K steps
// follow from them).
#pragma once

#include <cstdint>

#include "core/nvfp4.hpp"

namespace nvfp4::gemm {

class Divisor {
 public:
  Divisor() = default;
  NVFP4_HD Divisor(int d) : m_d(static_cast<uint32_t>(d)) {  // NOLINT(google-explicit-constructor)
    uint32_t l = 0;
    while (l < 31 && (uint32_t{1} << l) < m_d) ++l;
    m_shift = l;
    // 2^32 (2^l - d) / d < 2^32 because 2^(l-1) < d; d = 1 and powers of two give m = 1.
    m_mul = static_cast<uint32_t>((uint64_t{1} << 32) * ((uint64_t{1} << l) - m_d) / m_d + 1);
  }
  NVFP4_HD operator int() const { return static_cast<int>(m_d); }  // NOLINT(google-explicit-constructor)
  // n / d and n % d for 0 <= n < 2^31 (the launch's unit, tile and K-step numbers).
  NVFP4_HD int div(int n) const {
    const uint32_t u = static_cast<uint32_t>(n);
#if defined(__CUDA_ARCH__)
    const uint32_t hi = __umulhi(u, m_mul);
#else
    const uint32_t hi = static_cast<uint32_t>((uint64_t{u} * m_mul) >> 32);
#endif
    return static_cast<int>((hi + u) >> m_shift);
  }
  NVFP4_HD int mod(int n) const { return n - div(n) * static_cast<int>(m_d); }

 private:
  uint32_t m_d = 1, m_mul = 1, m_shift = 0;
};

// n / d by a plain int or by a Divisor, for code that takes either (split_k_begin, span_in_table:
// the host and its tests pass ints, the kernels Divisors).
NVFP4_HD int quotient(int n, int d) { return n / d; }
NVFP4_HD int quotient(int n, const Divisor& d) { return d.div(n); }

}  // namespace nvfp4::gemm
