// SPDX-License-Identifier: Apache-2.0
#include "core/cuda_check.hpp"

#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>

namespace nvfp4 {

bool is_sticky(cudaError_t code) {
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

bool CudaError::sticky() const { return is_sticky(code); }

void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line) {
  cudaGetLastError();  // clear the non-sticky last-error state
  throw CudaError(fmt::format("{}:{}: {} failed: {} ({})", file, line, expr, cudaGetErrorName(err),
                              cudaGetErrorString(err)),
                  err);
}

void abort_on_cuda_error(cudaError_t err, const char* expr, const char* file, int line) noexcept {
  if (err == cudaSuccess) return;
  // After a sticky error every call fails the same way; releasing resources is moot then, and
  // the run is being wound down to write its partial report: do not abort.
  if (is_sticky(err)) return;
  std::fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, expr, cudaGetErrorName(err));
  std::abort();
}

void throw_library_error(const std::string& what, const char* expr, const char* file, int line) {
  throw std::runtime_error(fmt::format("{}:{}: {} failed: {}", file, line, expr, what));
}

}  // namespace nvfp4
