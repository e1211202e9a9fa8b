// SPDX-License-Identifier: Apache-2.0
#include "cuda_check.hpp"

#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>

namespace nvfp4 {

bool CudaError::sticky() const {
  switch (code) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorUnknown:
      return true;
    default:
      return false;
  }
}

void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line) {
  cudaGetLastError();  // clear the non-sticky last-error state
  throw CudaError(fmt::format("{}:{}: {} failed: {} ({})", file, line, expr, cudaGetErrorName(err),
                              cudaGetErrorString(err)),
                  err);
}

void abort_on_cuda_error(cudaError_t err, const char* expr, const char* file, int line) noexcept {
  if (err == cudaSuccess) return;
  std::fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, expr, cudaGetErrorName(err));
  std::abort();
}

void throw_library_error(const std::string& what, const char* expr, const char* file, int line) {
  throw std::runtime_error(fmt::format("{}:{}: {} failed: {}", file, line, expr, what));
}

}  // namespace nvfp4
