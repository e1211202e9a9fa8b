// SPDX-License-Identifier: Apache-2.0
// npy.hpp: file output helpers (host only): an atomic file write and the NumPy .npy format.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace nvfp4 {

// Writes "<path>.tmp.<pid>" with `fill`, then renames it over `path`, so `path` is either the
// complete new file or untouched. On any failure the temporary file is removed and
// std::runtime_error naming `path` is thrown (exceptions from `fill` propagate the same way).
void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& fill);

// NPY format 1.0, C order, header padded so the data starts at a multiple of 64 bytes; written
// with write_file_atomic. dtype is a NumPy descr: "|u1", "|i1", "<f2", "<f4", "<i4", ... (little
// endian). `bytes` must equal product(shape) * item size, else std::invalid_argument.
void write_npy(const std::string& path, std::string_view dtype, const std::vector<int64_t>& shape,
               const void* data, size_t bytes);

// The header bytes write_npy emits (magic, version, length, dict, padding); for tests.
std::string npy_header(std::string_view dtype, const std::vector<int64_t>& shape);

}  // namespace nvfp4
