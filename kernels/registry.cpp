// SPDX-License-Identifier: Apache-2.0
// registry.cpp: the list of variants. Order: problems gemv, gemm, dual_gemm, group_gemm; within a
// problem: naive, vectorized, tensor-core, persistent, cublaslt (kVariantNames). Adding a variant
// = its file kernels/<problem>/<variant>.cu + one declaration and one list entry here + a CMake
// line.
#include <algorithm>

#include "core/variant.hpp"

namespace nvfp4 {

// One `extern const VariantInfo <problem>_<variant>;` per file. Variants still to be written
// (vectorized, tensor-core, persistent) get their declarations in the marked places, e.g.
// `extern const VariantInfo gemv_vectorized;` (tensor-core: `gemv_tensor_core`).
extern const VariantInfo gemv_naive;
extern const VariantInfo gemv_vectorized;
extern const VariantInfo gemv_tensor_core;
extern const VariantInfo gemv_persistent;
extern const VariantInfo gemv_cublaslt;

extern const VariantInfo gemm_naive;
extern const VariantInfo gemm_vectorized;
extern const VariantInfo gemm_tensor_core;
extern const VariantInfo gemm_persistent;
extern const VariantInfo gemm_cublaslt;

extern const VariantInfo dual_gemm_naive;
extern const VariantInfo dual_gemm_vectorized;
extern const VariantInfo dual_gemm_tensor_core;
extern const VariantInfo dual_gemm_persistent;
extern const VariantInfo dual_gemm_cublaslt;

extern const VariantInfo group_gemm_naive;
extern const VariantInfo group_gemm_vectorized;
extern const VariantInfo group_gemm_tensor_core;
extern const VariantInfo group_gemm_persistent;
extern const VariantInfo group_gemm_cublaslt;

std::string needs_sm70(const DeviceInfo& dev, const Shape&) {
  return dev.cc() < 70 ? "needs compute capability 7.0 or newer" : "";
}

const std::vector<const VariantInfo*>& all_variants() {
  static const std::vector<const VariantInfo*> list = {
      // gemv
      &gemv_naive,
      &gemv_vectorized,
      &gemv_tensor_core,
      &gemv_persistent,
      &gemv_cublaslt,
      // gemm
      &gemm_naive,
      &gemm_vectorized,
      &gemm_tensor_core,
      &gemm_persistent,
      &gemm_cublaslt,
      // dual_gemm
      &dual_gemm_naive,
      &dual_gemm_vectorized,
      &dual_gemm_tensor_core,
      &dual_gemm_persistent,
      &dual_gemm_cublaslt,
      // group_gemm
      &group_gemm_naive,
      &group_gemm_vectorized,
      &group_gemm_tensor_core,
      &group_gemm_persistent,
      &group_gemm_cublaslt,
  };
  return list;
}

std::vector<const VariantInfo*> variants_for(Problem p) {
  std::vector<const VariantInfo*> out;
  for (const VariantInfo* v : all_variants())
    if (v->problem == p) out.push_back(v);
  return out;
}

const VariantInfo* find_variant(Problem p, std::string_view name) {
  const auto& list = all_variants();
  const auto it = std::find_if(list.begin(), list.end(),
                               [&](const VariantInfo* v) { return v->problem == p && v->name == name; });
  return it == list.end() ? nullptr : *it;
}

}  // namespace nvfp4
