// SPDX-License-Identifier: Apache-2.0
// submission_harness.hpp: run/submission_harness.py, carried by the binary (cmake/embed_assets.cmake
// writes it into generated/submission_harness.cpp at build time).
#pragma once

#include <cstddef>
#include <string_view>

namespace nvfp4::embedded {
extern const unsigned char harness_py[];
extern const size_t harness_py_size;
}  // namespace nvfp4::embedded

namespace nvfp4 {
inline std::string_view harness_source() {
  return {reinterpret_cast<const char*>(embedded::harness_py), embedded::harness_py_size};
}
}  // namespace nvfp4
