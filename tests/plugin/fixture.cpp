// SPDX-License-Identifier: Apache-2.0
// fixture.cpp: broken plugins for the error paths of --plugin (tests/CMakeLists.txt builds one
// shared library per FIXTURE_* macro). None of them is ever run.
//   FIXTURE_NO_ENTRY   exports no nvfp4bench_get_plugin
//   FIXTURE_BAD_ABI    a table of another ABI version
//   FIXTURE_DUP_NAME   one variant name twice for one problem
//   FIXTURE_BAD_NAME   a plugin name with a character outside [a-z0-9_.-]
//   FIXTURE_FAILS      loads; fails:prepare fails in prepare, fails:run in run (ERROR rows)
#include "nvfp4bench_plugin.h"

namespace {
int32_t prepare(const nvfp4bench_case*, nvfp4bench_stream, void** handle) {
  *handle = nullptr;
  return 1;
}
int32_t prepare_ok(const nvfp4bench_case*, nvfp4bench_stream, void** handle) {
  *handle = nullptr;
  return 0;
}
int32_t run(void*, nvfp4bench_stream) { return 1; }
void destroy(void*) {}

const nvfp4bench_variant kVariants[] = {
    {"twice", NVFP4BENCH_GEMM, "fixture", nullptr, nullptr, prepare, run, destroy},
    {"twice", NVFP4BENCH_GEMM, "fixture", nullptr, nullptr, prepare, run, destroy},
};
const nvfp4bench_variant kFailing[] = {
    {"prepare", NVFP4BENCH_GEMM, "fixture: prepare fails", nullptr, nullptr, prepare, run, destroy},
    {"run", NVFP4BENCH_GEMM, "fixture: run fails", nullptr, nullptr, prepare_ok, run, destroy},
};
#if defined(FIXTURE_BAD_ABI)
const nvfp4bench_plugin kPlugin = {NVFP4BENCH_PLUGIN_ABI_VERSION + 98, "badabi", 1, kVariants};
#elif defined(FIXTURE_DUP_NAME)
const nvfp4bench_plugin kPlugin = {NVFP4BENCH_PLUGIN_ABI_VERSION, "dupname", 2, kVariants};
#elif defined(FIXTURE_FAILS)
const nvfp4bench_plugin kPlugin = {NVFP4BENCH_PLUGIN_ABI_VERSION, "fails", 2, kFailing};
#else
const nvfp4bench_plugin kPlugin = {NVFP4BENCH_PLUGIN_ABI_VERSION, "Bad Name", 1, kVariants};
#endif
}  // namespace

#if defined(FIXTURE_NO_ENTRY)
extern "C" NVFP4BENCH_PLUGIN_EXPORT const nvfp4bench_plugin* some_other_function(void) { return &kPlugin; }
#else
extern "C" const nvfp4bench_plugin* nvfp4bench_get_plugin(void) { return &kPlugin; }
#endif
