#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P198 trace (docs/perf-notes.md): G=2 [192,320] on P198's trace build (.carry/trace), 8 local steps
# (default) and 6 (NVFP4_PERSISTENT_LOCAL_STEPS=6), alternated, RUNS launches each.
#   scripts/dev/p198_trace.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
export TRACE_ROWS='main CTAs|local stored|local synced|unit next_work|stream wait|first copy|first loop end|  done'
for i in ${RUNS:-1 2}; do
  trace_table "$OUT" "ls8-$i" group_gemm 192x3072x4096,320x3072x4096
  trace_table "$OUT" "ls6-$i" group_gemm 192x3072x4096,320x3072x4096 NVFP4_PERSISTENT_LOCAL_STEPS=6
done
