// SPDX-License-Identifier: Apache-2.0
// npy.cpp: atomic file writes and NPY 1.0 files (numpy.lib.format: magic "\x93NUMPY", version
// 1.0, little-endian uint16 header length, a Python dict literal padded with spaces and ended
// by '\n' so that the array data starts at a multiple of 64 bytes).
#include "data/npy.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace nvfp4 {

static_assert(std::endian::native == std::endian::little, "NPY descr strings below assume a little-endian host");

void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& fill) {
  const std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  auto fail = [&](const std::string& why) {
    std::remove(tmp.c_str());
    throw std::runtime_error(fmt::format("cannot write '{}': {}", path, why));
  };
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) fail(fmt::format("cannot create '{}': {}", tmp, std::strerror(errno)));
    try {
      fill(out);
    } catch (const std::exception& e) {
      out.close();
      fail(e.what());
    }
    out.flush();
    if (!out) fail(fmt::format("write to '{}' failed: {}", tmp, std::strerror(errno)));
    out.close();
    if (out.fail()) fail(fmt::format("closing '{}' failed: {}", tmp, std::strerror(errno)));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) fail(fmt::format("rename failed: {}", std::strerror(errno)));
}

namespace {

size_t item_size(std::string_view dtype) {
  static constexpr std::pair<std::string_view, size_t> kKnown[] = {
      {"|u1", 1}, {"|i1", 1}, {"|b1", 1}, {"<u2", 2}, {"<i2", 2}, {"<f2", 2}, {"<u4", 4},
      {"<i4", 4}, {"<f4", 4}, {"<u8", 8}, {"<i8", 8}, {"<f8", 8}};
  for (const auto& [name, size] : kKnown)
    if (name == dtype) return size;
  throw std::invalid_argument(fmt::format("write_npy: unsupported dtype '{}'", dtype));
}

}  // namespace

std::string npy_header(std::string_view dtype, const std::vector<int64_t>& shape) {
  std::string dims;
  for (int64_t d : shape) {
    if (d < 0) throw std::invalid_argument(fmt::format("write_npy: negative dimension {}", d));
    dims += fmt::format("{}, ", d);
  }
  if (shape.size() > 1) dims.resize(dims.size() - 2);  // "(3, 4)"; one dimension keeps "(3,)"
  else if (shape.size() == 1) dims.pop_back();
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", dtype, dims);
  constexpr size_t kPrefix = 10;  // magic (6) + version (2) + header length (2)
  const size_t total = (kPrefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - kPrefix - dict.size() - 1, ' ');
  dict.push_back('\n');
  if (dict.size() > 0xFFFF) throw std::invalid_argument("write_npy: header longer than NPY 1.0 allows");
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(dict.size() & 0xFF));
  out.push_back(static_cast<char>(dict.size() >> 8));
  return out + dict;
}

void write_npy(const std::string& path, std::string_view dtype, const std::vector<int64_t>& shape,
               const void* data, size_t bytes) {
  const size_t item = item_size(dtype);
  size_t count = 1;
  for (int64_t d : shape) count *= static_cast<size_t>(d < 0 ? 0 : d);
  if (count * item != bytes)
    throw std::invalid_argument(
        fmt::format("write_npy {}: {} bytes given, shape needs {} x {} bytes", path, bytes, count, item));
  if (bytes > 0 && data == nullptr) throw std::invalid_argument(fmt::format("write_npy {}: null data", path));
  const std::string header = npy_header(dtype, shape);
  write_file_atomic(path, [&](std::ostream& out) {
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  });
}

}  // namespace nvfp4
