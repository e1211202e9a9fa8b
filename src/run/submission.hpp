// SPDX-License-Identifier: Apache-2.0
// submission.hpp: gpu-mode submissions as variants. `--submission [PROBLEM=]FILE.py` imports the
// file into the CPython that nvfp4bench hosts (run/python_host.hpp); for each case the harness
// (run/submission_harness.py) builds exactly gpu-mode's input tuple as torch tensors over the
// case's device buffers and calls `custom_kernel(data)` on nvfp4bench's stream. The variant is
// named `py:<file stem>`, for PROBLEM only or for all four problems.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/variant.hpp"
#include "run/results.hpp"

namespace nvfp4 {

struct LoadedSubmissions {
  std::vector<const VariantInfo*> variants;
  std::vector<SubmissionRecord> records;
};

// Loads every submission (before any GPU work, so usage errors come first on any machine).
// Throws UsageError with one line "--submission 'FILE': rule" for a missing file, a syntax error,
// no custom_kernel, an import that raises (other than a missing module), or a name that clashes
// (two files of one stem, or a plugin named "py"); "--python 'PATH': ..." for a --python that is
// no executable. No Python, no shared libpython, no torch, no CUDA in torch, or a module the file
// imports missing: the variants load and every case of them is SKIP with that reason.
LoadedSubmissions load_submissions(const std::vector<std::string>& specs, const std::optional<std::string>& python,
                                   int device, const std::vector<PluginRecord>& plugins);

}  // namespace nvfp4
