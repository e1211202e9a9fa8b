#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P196 trace (docs/perf-notes.md): G=2 [192,320] on two trace builds, alternated: .carry/trace-a =
# branch p196-local-half (warp 3's part and the token warp's wait stamped), .carry/trace-b = main.
#   scripts/dev/p196_trace.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
trace_alternate "$OUT" "${P196_RUNS:-1 2}" 'main CTAs|local stored|local synced|unit next_work|P196|first loop end|  done' \
  group_gemm 192x3072x4096,320x3072x4096
