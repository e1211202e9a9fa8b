/* SPDX-License-Identifier: Apache-2.0 */
/* nvfp4bench_plugin.h: the C ABI of plugin variants (`nvfp4bench --plugin PATH.so`).
 *
 * A plugin is a shared library that exports one function, NVFP4BENCH_PLUGIN_ENTRY:
 *
 *     const nvfp4bench_plugin* nvfp4bench_get_plugin(void);
 *
 * It returns a table that lives as long as the library: the ABI version the plugin was built
 * against (NVFP4BENCH_PLUGIN_ABI_VERSION), the plugin's name and its variants. nvfp4bench shows
 * each variant as `<plugin name>:<variant name>`, verifies every output element and times it
 * exactly like a built-in variant. This header is self-contained plain C (C89 + <stdint.h>): it
 * needs no CUDA header and nothing else of nvfp4bench.
 *
 * Data (all on the device, inputs read-only, one view per group; gemv, gemm and dual_gemm have
 * one group, group_gemm one per group). An operand X has `rows` rows of `k` elements, `l` batches:
 *   data        packed e2m1, two elements a byte, the lower k in the low nibble. Byte of element
 *               (b, row, kk): b*data_stride_l + row*data_stride_row + kk/2 (strides in bytes; K is
 *               contiguous, "K-major, L outermost").
 *   sf          e4m3 scales, one per 16 consecutive k, row-major: byte b*sf_stride_l +
 *               row*sf_stride_row + kk/16.
 *   sf_blocked  the same scales in gpu-mode's blocked ("permuted", cuBLAS) layout, for scale
 *               (row i, scale column j, batch b), rest_k = ceil(k/64):
 *               b*sf_blocked_stride_l + (i/128)*rest_k*512 + (j/4)*512 + (i%32)*16 + ((i%128)/32)*4 + j%4
 *               Padding entries (rows past `rows`, columns past k/16) hold arbitrary values, as in
 *               gpu-mode; they only scale elements that do not exist.
 * Output: c[b][m][n] FP16 (IEEE binary16 bits) at c + b*c_stride_l + m*c_stride_row + n (strides in
 * elements). The variant must write every element (nvfp4bench fills c with NaN before checking).
 *   gemm, group_gemm: c[b][m][n] = sum_k A[b][m][k] * B[b][n][k]  (element times its scale, FP32 or
 *                     better accumulation, FP16 result)
 *   dual_gemm:        c = silu(A.B1^T) * (A.B2^T), B1 = b, B2 = b2
 *   gemv:             n == 1; b has 128 rows, row 0 is the vector; c[b][m][0] = A[b][m][:] . B[b][0][:]
 *
 * Lifetime and threads: nvfp4bench calls everything from one host thread. `prepare` may allocate
 * and do untimed work; the case view it receives stays valid until `destroy` of the handle it
 * returned. `run` is timed: it must only enqueue work on `stream` (a cudaStream_t), with no
 * synchronisation and no allocation. Strings the plugin returns must stay valid until the library
 * is unloaded (at exit).
 *
 * CUDA: the plugin links its own CUDA runtime (nvcc's default, static). Device pointers and the
 * stream belong to the device nvfp4bench runs on, whose primary context is current on the calling
 * thread; do not call cudaSetDevice or cudaDeviceReset. nvfp4bench's runtime does not see the
 * plugin runtime's launch errors: `run` should return non-zero when cudaGetLastError() fails.
 * A kernel that faults is seen at the next synchronisation and reported ERROR, like any variant.
 */
#ifndef NVFP4BENCH_PLUGIN_H
#define NVFP4BENCH_PLUGIN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever a struct or a signature below changes; nvfp4bench loads only its own version. */
#define NVFP4BENCH_PLUGIN_ABI_VERSION 1
/* The name of the one exported function. */
#define NVFP4BENCH_PLUGIN_ENTRY "nvfp4bench_get_plugin"

#if defined(__GNUC__)
#define NVFP4BENCH_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define NVFP4BENCH_PLUGIN_EXPORT
#endif

/* Same type as cudaStream_t / CUstream, without including a CUDA header. */
typedef struct CUstream_st* nvfp4bench_stream;

typedef enum nvfp4bench_problem {
  NVFP4BENCH_GEMV = 0,
  NVFP4BENCH_GEMM = 1,
  NVFP4BENCH_DUAL_GEMM = 2,
  NVFP4BENCH_GROUP_GEMM = 3
} nvfp4bench_problem;

/* One GEMM's sizes: C is m x n, K is k, l batches. */
typedef struct nvfp4bench_dims {
  int64_t m, n, k, l;
} nvfp4bench_dims;

/* One NVFP4 operand on the device (see the layout above). */
typedef struct nvfp4bench_operand {
  const uint8_t* data;
  const uint8_t* sf;
  const uint8_t* sf_blocked;
  int64_t rows, k, l;
  int64_t data_stride_row, data_stride_l;  /* bytes */
  int64_t sf_stride_row, sf_stride_l;      /* bytes */
  int64_t sf_blocked_stride_l;             /* bytes */
} nvfp4bench_operand;

/* One group: A (m rows), B (n rows; gemv: 128), B2 (dual_gemm only, else all zero), C. */
typedef struct nvfp4bench_group {
  nvfp4bench_dims dims;
  nvfp4bench_operand a, b, b2;
  void* c;                                 /* FP16 */
  int64_t c_stride_row, c_stride_l;        /* elements */
} nvfp4bench_group;

typedef struct nvfp4bench_case {
  nvfp4bench_problem problem;
  int32_t group_count;
  const nvfp4bench_group* groups;
} nvfp4bench_case;

typedef struct nvfp4bench_variant {
  const char* name;            /* [a-z0-9_.-]+, unique within the plugin for its problem */
  nvfp4bench_problem problem;
  const char* summary;         /* one line: what it is (`nvfp4bench list`) */
  const char* timing_note;     /* what is outside the timed region, or NULL for nothing */
  /* NULL when the variant can run these groups' sizes on a GPU of compute capability
   * cc_major.cc_minor, else the reason it cannot (the case is reported SKIP with it). */
  const char* (*unsupported)(const nvfp4bench_dims* groups, int32_t group_count, int32_t cc_major,
                             int32_t cc_minor);
  /* Untimed set-up for one input set. Returns 0 and sets *handle, or non-zero (ERROR row). */
  int32_t (*prepare)(const nvfp4bench_case* c, nvfp4bench_stream stream, void** handle);
  /* Timed: enqueues the computation on `stream`. Returns 0, or non-zero (ERROR row). */
  int32_t (*run)(void* handle, nvfp4bench_stream stream);
  /* Frees what prepare made. */
  void (*destroy)(void* handle);
} nvfp4bench_variant;

typedef struct nvfp4bench_plugin {
  int32_t abi_version;         /* NVFP4BENCH_PLUGIN_ABI_VERSION */
  const char* name;            /* [a-z0-9_.-]+: variants are shown as name:variant */
  int32_t variant_count;
  const nvfp4bench_variant* variants;
} nvfp4bench_plugin;

/* The entry point every plugin defines (extern "C" when compiled as C++ or CUDA). */
typedef const nvfp4bench_plugin* (*nvfp4bench_get_plugin_fn)(void);
NVFP4BENCH_PLUGIN_EXPORT const nvfp4bench_plugin* nvfp4bench_get_plugin(void);

#ifdef __cplusplus
}
#endif

#endif /* NVFP4BENCH_PLUGIN_H */
