// SPDX-License-Identifier: Apache-2.0
// commands.hpp: the subcommands that are not a benchmark run.
//   nvfp4bench compare BASE.json NEW.json [--threshold PCT] [--markdown FILE] [--html FILE]
//   nvfp4bench render REPORT.json [--html FILE] [--markdown FILE] [--csv FILE]
//   nvfp4bench calibrate [--device N] [--json FILE]
#pragma once

namespace nvfp4 {

// Both take argv with argv[0] = the subcommand name; they return the process exit code.
int compare_command(int argc, const char* const* argv);
int calibrate_command(int argc, const char* const* argv);
int render_command(int argc, const char* const* argv);

}  // namespace nvfp4
