#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P203f (docs/perf-notes.md): do the K-step stamps make the first steps look slow? G=2 [192,320] on
# branch p203-sparse's trace build (.carry/trace), every step stamp (mask 0x3f: steps 0, 6, 8, 16, 32,
# last) against steps 0, 32 and last only (0x38), alternated; clock_ramp.py's intervals of each.
#   scripts/dev/p203f_trace.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
for i in ${RUNS:-1 2}; do
  for mask in 0x3f 0x38 0x30; do
    trace_run "$OUT" "m$mask-$i" group_gemm 192x3072x4096,320x3072x4096 NVFP4_TRACE_STEP_MASK=$mask 2>/dev/null | head -n 1
    python3 scripts/dev/clock_ramp.py "$OUT/m$mask-$i.trace" | grep -v 'waited on step\|^  [0-9]*:' | head -n 16
  done
done
