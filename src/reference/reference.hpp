// SPDX-License-Identifier: Apache-2.0
// reference.hpp: the references a case is checked against.
//  - DeviceReference: cuBLASLt on the device. Native block-scaled NVFP4 (VEC16_UE4M3) where the
//    device is CC 10.x/12.x and cuBLASLt reports support; elsewhere (sm_90) exact dequantisation
//    to FP16 on the device, cuBLASLt FP16 x FP16 with FP32 compute and FP32 output, then a small
//    kernel for the FP16 rounding (dual_gemm: silu(x1)*x2 in FP32, then FP16).
//  - host_reference: FP64 on the host, for small shapes and for checking the device reference.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <vector>

#include "core/case_data.hpp"
#include "core/device_info.hpp"

namespace nvfp4 {

struct ReferenceOutput {
  std::string name;                          // e.g. "cublaslt-fp16-dequant", "cublaslt-nvfp4"
  std::vector<std::vector<__half>> groups;   // host copy per group, [l][m][n]
  // Per element, only when asked for: how far two correct FP32 accumulations of this element can
  // differ, 2*sqrt(K)*2^-24 * sum_k |a*b| (propagated through silu(x1)*x2 for dual_gemm). Empty
  // otherwise. See verify.hpp for how the check uses it.
  std::vector<std::vector<float>> bounds;
};

class DeviceReference {
 public:
  explicit DeviceReference(const DeviceInfo& dev);
  ~DeviceReference();
  DeviceReference(const DeviceReference&) = delete;
  DeviceReference& operator=(const DeviceReference&) = delete;
  // with_bound: also compute ReferenceOutput::bounds (the `uniform` distribution, whose wide
  // scales make FP32 sums order-dependent).
  ReferenceOutput compute(const CaseView& c, cudaStream_t stream, bool with_bound = false);

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

// FP64 reference of one group, rounded once to FP16. `b2` is used only by dual_gemm.
std::vector<__half> host_reference(Problem p, const Dims& d, const HostFp4Matrix& a, const HostFp4Matrix& b,
                                   const HostFp4Matrix* b2);

}  // namespace nvfp4
