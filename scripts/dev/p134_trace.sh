#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine probe P134 (docs/perf-notes.md): per-CTA stamps of `persistent` (a build with
# NVFP4BENCH_TRACE=ON carried in .carry/trace): the start, the split-K exchange through L2 and the
# epilogue, on the cases nearest issues 11's and 12's bars, as planned, the last timed launch
# of each.   scripts/dev/p134_trace.sh OUT
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
session_start "$1"
OUT=$1
run() { trace_run "$OUT" "$@"; }
run gemm4096 gemm 128x4096x7168
run g2b group_gemm 128x4096x1536,384x4096x1536
run g8b group_gemm 40x7168x2048,76x7168x2048,168x7168x2048,72x7168x2048,164x7168x2048,148x7168x2048,196x7168x2048,160x7168x2048
run gemm2048 gemm 128x7168x2048
run g2a group_gemm 192x3072x4096,320x3072x4096
run g8a group_gemm 80x4096x7168,176x4096x7168,128x4096x7168,72x4096x7168,64x4096x7168,248x4096x7168,96x4096x7168,160x4096x7168
