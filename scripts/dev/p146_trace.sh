#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P146 trace (docs/perf-notes.md): G=2 [192,320] and gemm 128x7168x2048 on the trace builds of the
# branch (.carry/trace) and of main (.carry/tbase), local steps pipelined or not.
#   scripts/dev/p146_trace.sh OUT
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
G=192x3072x4096,320x3072x4096
trace_run "$OUT" g2a-p1 group_gemm $G
trace_run "$OUT" g2a-p0 group_gemm $G NVFP4_PERSISTENT_LOCAL_PIPE=0
trace_run "$OUT" g2a-p1-lg1 group_gemm $G NVFP4_PERSISTENT_LOCAL_GROUPS=1
trace_run "$OUT" gemm2048-p1 gemm 128x7168x2048
trace_run "$OUT" gemm2048-lg2-p1 gemm 128x7168x2048 NVFP4_PERSISTENT_LOCAL_GROUPS=2
mv .carry/trace .carry/tnew && mv .carry/tbase .carry/trace
trace_run "$OUT" base-g2a group_gemm $G
trace_run "$OUT" base-g2a-lg1 group_gemm $G NVFP4_PERSISTENT_LOCAL_GROUPS=1
trace_run "$OUT" base-gemm2048 gemm 128x7168x2048
trace_run "$OUT" base-gemm2048-lg2 gemm 128x7168x2048 NVFP4_PERSISTENT_LOCAL_GROUPS=2
