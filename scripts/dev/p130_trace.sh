#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine probe P130 (docs/perf-notes.md): per-CTA start stamps of `persistent` (a build with
# NVFP4BENCH_TRACE=ON carried in .carry/trace) on the cases nearest issue 12's bars and the fused
# gemm shape, as planned and with the fused plans' weights not held (P126), the last timed launch
# of each.   scripts/dev/p130_trace.sh OUT
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
session_start "$1"
OUT=$1
run() { trace_run "$OUT" "$@"; }
run g2b group_gemm 128x4096x1536,384x4096x1536
run g2b-w0 group_gemm 128x4096x1536,384x4096x1536 NVFP4_PERSISTENT_WEIGHTS_AHEAD=0
run gemm4096 gemm 128x4096x7168
run gemm4096-w0 gemm 128x4096x7168 NVFP4_PERSISTENT_WEIGHTS_AHEAD=0
run g2a group_gemm 192x3072x4096,320x3072x4096
run g8b group_gemm 40x7168x2048,76x7168x2048,168x7168x2048,72x7168x2048,164x7168x2048,148x7168x2048,196x7168x2048,160x7168x2048
run gemm2048 gemm 128x7168x2048
