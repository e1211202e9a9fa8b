// SPDX-License-Identifier: Apache-2.0
// variant.hpp: the variant registry. One file per variant, kernels/<problem>/<variant>.cu, each
// defining one VariantInfo; kernels/registry.cpp lists them. Adding a variant = a file + a registry line
// + a CMake line.
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/case_data.hpp"
#include "core/device_info.hpp"

namespace nvfp4 {

// A variant bound to one input set. Built by VariantInfo::prepare (allocation, metadata upload,
// any work the variant documents as untimed); run() only enqueues work on `stream`: no
// synchronisation, no allocation. It writes every element of the case's C tensors.
class Runner {
 public:
  virtual ~Runner() = default;
  virtual void run(cudaStream_t stream) = 0;
  // How this case is launched, where the variant chooses per shape (CTA shape, splits, grid); ""
  // when there is nothing to say. Reported beside the timing.
  virtual std::string plan() const { return ""; }
  // After a run() whose output is checked (never after a timed one): makes the output visible in
  // the case's C tensors. A gpu-mode submission's returned tensor is copied into C here. Throws
  // OutputContractError when the output breaks the problem's contract (reported as FAIL).
  virtual void finish(cudaStream_t /*stream*/) {}
  // Why run() cannot be captured into a CUDA graph (--timer graph), or "" when it can.
  virtual std::string not_capturable() const { return ""; }
};

// An output of the wrong kind (shape, dtype, count): the case FAILs with this message.
struct OutputContractError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct VariantInfo {
  Problem problem;
  std::string_view name;     // naive, vectorized, tensor-core, persistent, cublaslt
  std::string_view summary;  // what it adds, one line (README table, `list`)
  std::string_view timing_note;  // what is outside the timed region, if anything ("" = nothing)
  // Empty when the variant can run this shape on this device, else the reason (reported as SKIP).
  std::string (*unsupported)(const DeviceInfo& dev, const Shape& shape);
  std::unique_ptr<Runner> (*prepare)(const CaseView& c, cudaStream_t stream);
};

// The `unsupported` of variants that run on any GPU the CUDA 13 toolkit supports (CC >= 7.0).
std::string needs_sm70(const DeviceInfo& dev, const Shape& shape);

const std::vector<const VariantInfo*>& all_variants();
std::vector<const VariantInfo*> variants_for(Problem p);
const VariantInfo* find_variant(Problem p, std::string_view name);

// The variant names the tool knows, in registry order (for errors and `list`).
inline constexpr std::string_view kVariantNames[] = {"naive", "vectorized", "tensor-core", "persistent",
                                                     "cublaslt"};

}  // namespace nvfp4
