// SPDX-License-Identifier: Apache-2.0
// plugin.hpp: plugin variants. `--plugin PATH.so` loads a shared library through the C ABI of
// core/nvfp4bench_plugin.h; each of its variants becomes an ordinary VariantInfo named
// `<plugin>:<variant>`, which the runner verifies and times like a built-in one.
#pragma once

#include <string>
#include <vector>

#include "core/case_data.hpp"
#include "core/nvfp4bench_plugin.h"
#include "core/variant.hpp"
#include "run/results.hpp"

namespace nvfp4 {

struct LoadedPlugins {
  std::vector<const VariantInfo*> variants;  // in load order, then table order
  std::vector<PluginRecord> records;
};

// Loads the libraries in order and keeps them loaded until the process exits. Throws UsageError
// with one line "--plugin 'PATH': rule" for a missing or unloadable file, a missing entry point,
// another ABI version, a malformed table, or a name that clashes (two plugins of one name, a
// variant twice in a plugin).
LoadedPlugins load_plugins(const std::vector<std::string>& paths);

// Every run-time variant name in `requested` ("x:y") must be one of `loaded` (plugin and submission
// variants); else UsageError.
void check_plugin_variant_names(const std::vector<std::string>& requested,
                                const std::vector<const VariantInfo*>& loaded);

// The C view of a case that prepare() receives. Host-only (no device access); kept by the runner
// of a plugin variant for as long as its handle lives.
struct PluginCaseView {
  nvfp4bench_problem problem = NVFP4BENCH_GEMM;
  std::vector<nvfp4bench_group> groups;
  nvfp4bench_case as_case() const { return {problem, static_cast<int32_t>(groups.size()), groups.data()}; }
};
PluginCaseView to_plugin_view(const CaseView& c);

}  // namespace nvfp4
