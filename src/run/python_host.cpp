// SPDX-License-Identifier: Apache-2.0
#include "run/python_host.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "cli/plan.hpp"
#include "core/scoped_env.hpp"
#include "run/submission_harness.hpp"

extern char** environ;

namespace nvfp4 {

namespace {

bool is_executable_file(const std::string& p) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

std::string first_line(const std::string& s) {
  const size_t nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

// The child's stdout and stderr together, and its exit status (-1: it could not start).
int run_child(const std::vector<std::string>& argv, std::string& output) {
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    output = std::strerror(rc);
    return -1;
  }
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    output.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

}  // namespace

std::optional<std::string> find_python(const std::optional<std::string>& flag, std::string& why) {
  if (flag) {
    if (!is_executable_file(*flag)) throw UsageError(fmt::format("--python '{}': no such executable file", *flag));
    return *flag;
  }
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string cand = (dir.empty() ? std::string(".") : dir) + "/python3";
    if (is_executable_file(cand)) return cand;
  }
  why = "no Python: python3 is not on PATH (or name one with --python PATH)";
  return std::nullopt;
}

std::optional<PythonProbe> probe_python(const std::string& python, const std::vector<std::string>& files,
                                        std::string& why) {
  std::vector<std::string> argv{python, "-c", std::string(harness_source())};
  argv.insert(argv.end(), files.begin(), files.end());
  std::string out;
  const int rc = run_child(argv, out);
  if (rc != 0) {
    why = rc < 0 ? fmt::format("no Python: {} could not be started ({})", python, out)
                 : fmt::format("no Python: {} exited with {} when probed: {}", python, rc, first_line(out));
    return std::nullopt;
  }
  const size_t brace = out.rfind("\n{");
  const std::string json_text = brace == std::string::npos ? out : out.substr(brace + 1);
  try {
    const auto j = nlohmann::json::parse(json_text);
    PythonProbe p;
    p.executable = j.at("executable").get<std::string>();
    if (p.executable.empty()) p.executable = python;
    p.version = j.at("version").get<std::string>();
    p.full_version = j.at("full_version").get<std::string>();
    p.home = j.at("home").get<std::string>();
    p.sys_path = j.at("sys_path").get<std::vector<std::string>>();
    p.libpython = j.at("libpython").get<std::vector<std::string>>();
    p.file_problems = j.at("files").get<std::vector<std::string>>();
    if (p.file_problems.size() != files.size()) throw std::runtime_error("file count");
    return p;
  } catch (const std::exception&) {
    why = fmt::format("no Python: {} did not answer the probe ({})", python, first_line(out));
    return std::nullopt;
  }
}

// ---- the interpreter ------------------------------------------------------------------------

// The stable-ABI functions nvfp4bench calls, resolved from the loaded libpython.
struct EmbeddedPython::Api {
  using Obj = void;
  const char* (*Py_GetVersion)();
  void (*Py_InitializeEx)(int);
  int (*Py_IsInitialized)();
  void* (*PyEval_SaveThread)();
  int (*PyGILState_Ensure)();
  void (*PyGILState_Release)(int);
  Obj* (*Py_CompileString)(const char*, const char*, int);
  Obj* (*PyImport_ExecCodeModule)(const char*, Obj*);
  Obj* (*PyObject_GetAttrString)(Obj*, const char*);
  Obj* (*PyObject_CallObject)(Obj*, Obj*);
  Obj* (*PyTuple_New)(ssize_t);
  int (*PyTuple_SetItem)(Obj*, ssize_t, Obj*);
  Obj* (*PyLong_FromLongLong)(long long);
  Obj* (*PyUnicode_FromString)(const char*);
  Obj* (*PyUnicode_AsUTF8String)(Obj*);
  char* (*PyBytes_AsString)(Obj*);
  void (*Py_DecRef)(Obj*);
  void (*PyErr_Print)();
};

namespace {

constexpr int kPyFileInput = 257;  // Py_file_input, fixed by CPython's stable ABI

template <class F>
bool resolve(void* lib, const char* name, F& fn, std::string& missing) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  if (!fn) missing = name;
  return fn != nullptr;
}

bool resolve_all(void* lib, EmbeddedPython::Api& a, std::string& missing) {
  return resolve(lib, "Py_GetVersion", a.Py_GetVersion, missing) &&
         resolve(lib, "Py_InitializeEx", a.Py_InitializeEx, missing) &&
         resolve(lib, "Py_IsInitialized", a.Py_IsInitialized, missing) &&
         resolve(lib, "PyEval_SaveThread", a.PyEval_SaveThread, missing) &&
         resolve(lib, "PyGILState_Ensure", a.PyGILState_Ensure, missing) &&
         resolve(lib, "PyGILState_Release", a.PyGILState_Release, missing) &&
         resolve(lib, "Py_CompileString", a.Py_CompileString, missing) &&
         resolve(lib, "PyImport_ExecCodeModule", a.PyImport_ExecCodeModule, missing) &&
         resolve(lib, "PyObject_GetAttrString", a.PyObject_GetAttrString, missing) &&
         resolve(lib, "PyObject_CallObject", a.PyObject_CallObject, missing) &&
         resolve(lib, "PyTuple_New", a.PyTuple_New, missing) &&
         resolve(lib, "PyTuple_SetItem", a.PyTuple_SetItem, missing) &&
         resolve(lib, "PyLong_FromLongLong", a.PyLong_FromLongLong, missing) &&
         resolve(lib, "PyUnicode_FromString", a.PyUnicode_FromString, missing) &&
         resolve(lib, "PyUnicode_AsUTF8String", a.PyUnicode_AsUTF8String, missing) &&
         resolve(lib, "PyBytes_AsString", a.PyBytes_AsString, missing) &&
         resolve(lib, "Py_DecRef", a.Py_DecRef, missing) && resolve(lib, "PyErr_Print", a.PyErr_Print, missing);
}

}  // namespace

EmbeddedPython* EmbeddedPython::start(const PythonProbe& probe, std::string& why) {
  static std::unique_ptr<EmbeddedPython> g_python;
  static std::string g_why;
  static bool g_tried = false;
  if (g_tried) {
    why = g_why;
    return g_python.get();
  }
  g_tried = true;
  auto fail = [&](std::string reason) -> EmbeddedPython* {
    g_why = why = std::move(reason);
    return nullptr;
  };
  // RTLD_GLOBAL: extension modules (torch._C, ...) resolve CPython's symbols from this library.
  void* lib = nullptr;
  std::string errors;
  for (const std::string& cand : probe.libpython) {
    lib = dlopen(cand.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (lib) break;
    const char* e = dlerror();
    if (errors.empty() && e) errors = e;
  }
  if (!lib)
    return fail(fmt::format("no shared libpython{} for {} (Python {} built without --enable-shared?){}",
                            probe.version, probe.executable, probe.full_version, errors.empty() ? "" : ": " + errors));
  auto api = std::make_unique<Api>();
  std::string missing;
  if (!resolve_all(lib, *api, missing))
    return fail(fmt::format("the libpython of {} lacks {} (Python 3.9 or newer needed)", probe.executable, missing));
  const std::string lib_version = api->Py_GetVersion();
  if (lib_version.rfind(probe.version + ".", 0) != 0)
    return fail(fmt::format("the libpython found for {} is Python {}, not {}", probe.executable,
                            lib_version.substr(0, lib_version.find(' ')), probe.version));
  if (!api->Py_IsInitialized()) {
    const ScopedEnv home("PYTHONHOME", probe.home);  // for the interpreter's start only
    api->Py_InitializeEx(0);  // 0: Python installs no signal handlers (Ctrl-C stays nvfp4bench's)
  }
  void* code = api->Py_CompileString(std::string(harness_source()).c_str(), "submission_harness.py", kPyFileInput);
  void* module = code ? api->PyImport_ExecCodeModule("_nvfp4bench_harness", code) : nullptr;
  if (code) api->Py_DecRef(code);
  if (!module) {
    api->PyErr_Print();
    return fail(fmt::format("the embedded interpreter of {} could not run nvfp4bench's harness (traceback above)",
                            probe.executable));
  }
  api->PyEval_SaveThread();  // release the GIL; every call below takes it
  g_python.reset(new EmbeddedPython(api.release(), module));
  return g_python.get();
}

std::string EmbeddedPython::invoke(const char* fn, void* args) {
  Api& a = *m_api;
  void* f = a.PyObject_GetAttrString(m_harness, fn);
  void* r = f && args ? a.PyObject_CallObject(f, args) : nullptr;
  std::string out;
  bool ok = false;
  if (r) {
    if (void* bytes = a.PyUnicode_AsUTF8String(r)) {
      if (const char* s = a.PyBytes_AsString(bytes)) {
        out = s;
        ok = true;
      }
      a.Py_DecRef(bytes);
    }
    a.Py_DecRef(r);
  }
  if (f) a.Py_DecRef(f);
  if (args) a.Py_DecRef(args);
  if (!ok) a.PyErr_Print();
  return ok ? out : std::string("\x01");
}

std::string EmbeddedPython::call_args(const char* fn, std::initializer_list<Arg> args) {
  Api& a = *m_api;
  const int gil = a.PyGILState_Ensure();
  void* tuple = a.PyTuple_New(static_cast<ssize_t>(args.size()));
  ssize_t i = 0;
  for (const Arg& arg : args) {
    void* item = arg.text ? a.PyUnicode_FromString(arg.text) : a.PyLong_FromLongLong(arg.number);
    if (tuple) a.PyTuple_SetItem(tuple, i++, item);  // steals item
  }
  std::string r = invoke(fn, tuple);
  a.PyGILState_Release(gil);
  if (r == "\x01") throw std::runtime_error(fmt::format("the submission harness failed in {}() (traceback above)", fn));
  return r;
}

}  // namespace nvfp4
