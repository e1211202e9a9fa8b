// SPDX-License-Identifier: Apache-2.0
// bound_variant.hpp: variants made at run time (--plugin libraries, --submission files). A
// VariantInfo holds plain function pointers without a context argument, so each such variant takes
// one slot of a fixed table, and the slot's `unsupported`/`prepare` forward to the object bound there.
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "core/case_data.hpp"
#include "core/device_info.hpp"
#include "core/variant.hpp"

namespace nvfp4 {

// At most this many run-time variants in one process (plugin variants and submissions together).
inline constexpr int kMaxBoundVariants = 64;

class BoundVariant {
 public:
  virtual ~BoundVariant() = default;
  virtual std::string unsupported(const DeviceInfo& dev, const Shape& shape) const = 0;
  virtual std::unique_ptr<Runner> prepare(const CaseView& c, cudaStream_t stream) const = 0;
};

// Binds `v` (which must live until exit) to a free slot and returns a VariantInfo whose functions
// call it. The strings must live until exit too. Throws UsageError naming `what` when all
// kMaxBoundVariants slots are taken.
VariantInfo bind_variant(const BoundVariant& v, Problem p, std::string_view name, std::string_view summary,
                         std::string_view timing_note, const std::string& what);

}  // namespace nvfp4
