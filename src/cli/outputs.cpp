// SPDX-License-Identifier: Apache-2.0
// outputs.cpp: the output paths of a run (--json, --csv, --markdown, --dump), checked before any
// GPU work so that a bad path is a usage error (exit 2), never a failed case.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>

#include "cli/plan_parts.hpp"

namespace nvfp4 {

void check_writable(const std::string& path, const std::string& flag) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path.empty()) throw UsageError(fmt::format("{} '': the path is empty", flag));
  if (fs::is_directory(path, ec)) throw UsageError(fmt::format("{} {}: '{}' is a directory", flag, path, path));
  std::string dir = fs::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  if (!fs::exists(dir, ec)) throw UsageError(fmt::format("{} {}: directory '{}' does not exist", flag, path, dir));
  if (!fs::is_directory(dir, ec)) throw UsageError(fmt::format("{} {}: '{}' is not a directory", flag, path, dir));
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw UsageError(fmt::format("{} {}: directory '{}' is not writable", flag, path, dir));
  if (fs::exists(path, ec) && ::access(path.c_str(), W_OK) != 0)
    throw UsageError(fmt::format("{} {}: '{}' exists and is not writable", flag, path, path));
}

namespace cli {

void prepare_dump_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (dir.empty()) throw UsageError("--dump '': directory name is empty");
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) throw UsageError(fmt::format("--dump {}: '{}' is not a directory", dir, dir));
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
      throw UsageError(fmt::format("--dump {}: directory '{}' is not writable", dir, dir));
    return;
  }
  // Not there yet: its parent must exist and be writable, and it is created now rather than when
  // the first case runs, so a directory that cannot be made (a read-only place, /proc) is a usage
  // error here and not an ERROR row later.
  std::string trimmed = dir;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  check_writable(trimmed, "--dump");
  fs::create_directory(trimmed, ec);
  if (ec)
    throw UsageError(one_line(fmt::format("--dump {}: cannot create directory '{}': {}", trimmed, trimmed, ec.message())));
}

}  // namespace cli
}  // namespace nvfp4
