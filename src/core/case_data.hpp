// SPDX-License-Identifier: Apache-2.0
// case_data.hpp: one generated input set on the device, and the non-owning views kernels receive.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/device_buffer.hpp"
#include "core/problem.hpp"

namespace nvfp4 {

// Device view of one NVFP4 operand with `rows` rows of `k` elements, `l` batches (L outermost).
struct Fp4Matrix {
  const uint8_t* data = nullptr;        // [l][rows][k/2], low nibble = lower k
  const uint8_t* sf = nullptr;          // [l][rows][k/16] e4m3, row-major
  const uint8_t* sf_blocked = nullptr;  // [l][ceil(rows/128)][ceil(k/64)][512], PROBLEMS.md 1.3
  int64_t rows = 0, k = 0, l = 1;
};

// One GEMM of the case: C[l][m][n] = A[l][m][:] . B[l][n][:] (dual: silu(A.B1) * (A.B2)).
// gemv: dims.n == 1 and b.rows == 128 (row 0 is the vector), c is [l][m][1].
struct GemmOperands {
  Dims dims;
  Fp4Matrix a, b, b2;  // b2 only for dual_gemm
  __half* c = nullptr;  // [l][m][n], FP16
};

struct CaseView {
  Problem problem = Problem::gemm;
  Shape shape;
  std::vector<GemmOperands> groups;  // one per group (one unless group_gemm)
};

enum class Dist { gpumode, uniform };
std::string_view to_string(Dist d);
bool parse_dist(std::string_view s, Dist& out);

// An input set that owns its device memory. Generated on the device: every byte depends only on
// (seed, tensor id, element index) through a counter-based RNG (Philox4x32-10).
class CaseData {
 public:
  CaseData(Problem p, const Shape& s, Dist dist, uint64_t seed, cudaStream_t stream);
  const CaseView& view() const { return m_view; }
  // Fills every output element with a NaN pattern (0x7E00) so unwritten elements fail.
  void poison_outputs(cudaStream_t stream) const;
  Problem problem() const { return m_view.problem; }
  int64_t bytes() const { return static_cast<int64_t>(m_storage.bytes()); }

 private:
  DeviceBuffer m_storage;
  CaseView m_view;
};

// Host copy of one operand (for the host reference, dumps and tests).
struct HostFp4Matrix {
  std::vector<uint8_t> data, sf, sf_blocked;
  int64_t rows = 0, k = 0, l = 1;
  float value(int64_t b, int64_t row, int64_t kk) const;  // element * its scale
};
HostFp4Matrix to_host(const Fp4Matrix& m);
std::vector<__half> to_host(const __half* dev, int64_t count);

}  // namespace nvfp4
