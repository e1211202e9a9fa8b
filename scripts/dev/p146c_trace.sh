#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P146c trace (docs/perf-notes.md): G=2 [192,320] on the trace builds of branch p146c (.carry/trace,
# local steps pipelined or not) and of main (.carry/tbase).
#   scripts/dev/p146c_trace.sh OUT
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
G=192x3072x4096,320x3072x4096
trace_run "$OUT" c-p1 group_gemm $G
trace_run "$OUT" c-p0 group_gemm $G NVFP4_PERSISTENT_LOCAL_PIPE=0
mv .carry/trace .carry/tnew && mv .carry/tbase .carry/trace
trace_run "$OUT" base group_gemm $G
