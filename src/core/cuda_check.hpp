// SPDX-License-Identifier: Apache-2.0
// cuda_check.hpp: one family of error macros. They throw CudaError (file:line, the call, the error);
// the _NOEXCEPT form is for destructors and aborts instead.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace nvfp4 {

struct CudaError : std::runtime_error {
  cudaError_t code;
  CudaError(std::string msg, cudaError_t c) : std::runtime_error(std::move(msg)), code(c) {}
  // Errors after which the context is unusable: the run must stop (and still write its report).
  bool sticky() const;
};

// Errors that leave the CUDA context unusable (illegal address, launch failure, ...).
bool is_sticky(cudaError_t code);

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line);
void abort_on_cuda_error(cudaError_t err, const char* expr, const char* file, int line) noexcept;
// Generic library status (cuBLASLt, CUPTI): `what` names the library and status.
[[noreturn]] void throw_library_error(const std::string& what, const char* expr, const char* file, int line);

}  // namespace nvfp4

#define CUDA_CHECK(expr)                                                                  \
  do {                                                                                    \
    const cudaError_t nvfp4_err_ = (expr);                                                \
    if (nvfp4_err_ != cudaSuccess) ::nvfp4::throw_cuda_error(nvfp4_err_, #expr, __FILE__, __LINE__); \
  } while (false)

// For destructors: aborts on an error, except a sticky one (the context is already lost).
#define CUDA_CHECK_NOEXCEPT(expr) ::nvfp4::abort_on_cuda_error((expr), #expr, __FILE__, __LINE__)

// After every kernel launch: launch-configuration errors surface here.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
