// SPDX-License-Identifier: Apache-2.0
// tensor_map.hpp: tiled TMA descriptors (CUtensorMap) for the GEMM family's kernels, encoded on the
// host through the driver's cuTensorMapEncodeTiled, fetched at run time (the binary does not link
// libcuda). Used by `persistent` (gemm_wgmma.cuh) and `tensor-core`'s token tiles (gemm_mma.cuh).
#pragma once

#include <cuda.h>  // CUtensorMap (types only)
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <string>

#include "core/cuda_check.hpp"

namespace nvfp4::gemm {

// cuTensorMapEncodeTiled from the driver (the binary does not link libcuda).
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || p == nullptr)
      throw_library_error("the CUDA driver has no cuTensorMapEncodeTiled", "cudaGetDriverEntryPointByVersion",
                          __FILE__, __LINE__);
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

// A tiled TMA descriptor: `rank` dims (innermost first), byte strides of dims 1.., box sizes.
inline CUtensorMap tensor_map(CUtensorMapDataType type, int rank, const void* base, const cuuint64_t* dims,
                              const cuuint64_t* strides, const cuuint32_t* box, CUtensorMapSwizzle swizzle) {
  CUtensorMap m{};
  const cuuint32_t elem_strides[3] = {1, 1, 1};
  const CUresult r = tensor_map_encoder()(&m, type, static_cast<cuuint32_t>(rank), const_cast<void*>(base), dims,
                                          strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                                          CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw_library_error("cuTensorMapEncodeTiled failed (CUresult " + std::to_string(static_cast<int>(r)) + ")",
                        "tensor_map", __FILE__, __LINE__);
  return m;
}

}  // namespace nvfp4::gemm
