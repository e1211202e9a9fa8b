// SPDX-License-Identifier: Apache-2.0
// dump.hpp: --dump DIR: one folder per case holding its inputs (FP4 data, both scale layouts) as
// raw-byte .npy files, the reference and every variant's output as float16 .npy, and index.json.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/case_data.hpp"

namespace nvfp4 {

class CaseDump {
 public:
  // Creates <root>/<problem>_<shape>_<dist>_seed<seed>/ and writes the case's inputs.
  CaseDump(const std::string& root, const CaseView& v, Dist dist, uint64_t seed);
  // <name>.npy per group ("g<i>_<name>" for group_gemm), float16 [l][m][n].
  void write_output(const std::string& name, const std::vector<std::vector<__half>>& per_group);
  // Writes index.json (temporary file + rename).
  void finish();

 private:
  void write_operand(const std::string& pre, const std::string& name, const Fp4Matrix& m);
  void add(const std::string& name, std::string_view dtype, std::vector<int64_t> shape, const void* data,
           size_t bytes);

  const CaseView& m_view;
  std::filesystem::path m_dir;
  nlohmann::ordered_json m_index;
};

}  // namespace nvfp4
