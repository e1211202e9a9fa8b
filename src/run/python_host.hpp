// SPDX-License-Identifier: Apache-2.0
// python_host.hpp: CPython inside nvfp4bench, for --submission (run/submission.hpp).
//
// Nothing of Python is linked or included at build time. At run time a probe runs the chosen
// `python3` as a child process (where is its shared libpython, its sys.path, is each submission file
// well formed), then the process loads that libpython with dlopen and starts the interpreter with
// the embedded harness (run/submission_harness.py). Only functions of CPython's stable ABI are
// used, so a binary built beside one Python runs submissions under another (3.9 or newer).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace nvfp4 {

struct PythonProbe {
  std::string executable;    // sys.executable of the probed Python
  std::string version;       // "3.12"
  std::string full_version;  // "3.12.3"
  std::string home;          // "base_prefix:base_exec_prefix" (PYTHONHOME of the embedded interpreter)
  std::vector<std::string> sys_path;
  std::vector<std::string> libpython;  // candidates for dlopen, best first
  std::vector<std::string> file_problems;  // per probed file: "" or why it is no submission
};

// The Python to use: `flag` (--python) when given, else `python3` on PATH. nullopt with `why`
// when there is none; throws UsageError when --python names no executable file.
std::optional<std::string> find_python(const std::optional<std::string>& flag, std::string& why);

// Runs `python -c <harness> files...`. nullopt with `why` when the child fails or says nothing usable.
std::optional<PythonProbe> probe_python(const std::string& python, const std::vector<std::string>& files,
                                        std::string& why);

// The interpreter of this process, started once (later calls return the same one).
class EmbeddedPython {
 public:
  // nullptr with `why` when no libpython of the probe loads or the interpreter does not start.
  static EmbeddedPython* start(const PythonProbe& probe, std::string& why);
  // harness.<fn>(arg) for the str -> str entry points. Throws std::runtime_error when the harness
  // itself fails (its traceback goes to stderr).
  std::string call(const char* fn, const std::string& arg) { return call_args(fn, {Arg{arg.c_str(), 0}}); }
  // harness.<fn>(a, b) for the (int, int) -> str entry points (call, publish), and (int) (release).
  std::string call(const char* fn, int64_t a, int64_t b) { return call_args(fn, {Arg{nullptr, a}, Arg{nullptr, b}}); }
  std::string call(const char* fn, int64_t a) { return call_args(fn, {Arg{nullptr, a}}); }

  struct Api;

 private:
  explicit EmbeddedPython(Api* api, void* harness) : m_api(api), m_harness(harness) {}
  struct Arg {
    const char* text;  // a str, or nullptr for the int `number`
    int64_t number;
  };
  std::string call_args(const char* fn, std::initializer_list<Arg> args);
  std::string invoke(const char* fn, void* args);
  Api* m_api;
  void* m_harness;  // the harness module (PyObject*)
};

}  // namespace nvfp4
