#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P187 trace (docs/perf-notes.md): G=2 [192,320] on two trace builds with a consumer stamp at K step 6
# (and, on the branch's, warp 3's part stored): .carry/trace-a = branch p187-producer-local-tail,
# .carry/trace-b = main; alternated, two launches each, summarised by p183_summary.py.
#   scripts/dev/p187_trace.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
trace_alternate "$OUT" "${P187_RUNS:-1 2}" 'main CTAs|local stored|local synced|unit next_work|P187|first loop end|  done' \
  group_gemm 192x3072x4096,320x3072x4096
