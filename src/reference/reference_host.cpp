// SPDX-License-Identifier: Apache-2.0
// reference_host.cpp: FP64 host reference (small shapes, tests).
#include <cmath>

#include "core/nvfp4.hpp"
#include "reference/reference.hpp"
#include "reference/verify.hpp"

namespace nvfp4 {

float HostFp4Matrix::value(int64_t b, int64_t row, int64_t kk) const {
  const uint8_t byte = data[static_cast<size_t>((b * rows + row) * (k / 2) + kk / 2)];
  const unsigned code = (kk % 2) ? fp4_hi(byte) : fp4_lo(byte);
  const SfGeometry g{rows, k / kSfVec, l};
  return e2m1_to_float(code) * e4m3_to_float(sf[static_cast<size_t>(g.rowmajor_offset(row, kk / kSfVec, b))]);
}

namespace {

double dot(const HostFp4Matrix& a, const HostFp4Matrix& b, int64_t l, int64_t m, int64_t n) {
  double acc = 0;
  for (int64_t k = 0; k < a.k; ++k) acc += double(a.value(l, m, k)) * double(b.value(l, n, k));
  return acc;
}

}  // namespace

std::vector<__half> host_reference(Problem p, const Dims& d, const HostFp4Matrix& a, const HostFp4Matrix& b,
                                   const HostFp4Matrix* b2) {
  std::vector<__half> out(static_cast<size_t>(d.l * d.m * d.n));
  for (int64_t l = 0; l < d.l; ++l)
    for (int64_t m = 0; m < d.m; ++m)
      for (int64_t n = 0; n < d.n; ++n) {
        double v = dot(a, b, l, m, n);
        if (p == Problem::dual_gemm) {
          const double gate = v, up = dot(a, *b2, l, m, n);
          v = gate / (1.0 + std::exp(-gate)) * up;
        }
        out[static_cast<size_t>((l * d.m + m) * d.n + n)] = __double2half(v);
      }
  return out;
}

}  // namespace nvfp4
