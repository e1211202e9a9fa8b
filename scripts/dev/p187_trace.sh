#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P187 trace (docs/perf-notes.md): G=2 [192,320] on two trace builds with a consumer stamp at K step 6
# (and, on the branch's, warp 3's part stored): .carry/trace-a = branch p187-producer-local-tail,
# .carry/trace-b = main; alternated, two launches each, summarised by p183_summary.py.
#   scripts/dev/p187_trace.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
for i in ${P187_RUNS:-1 2}; do
  for b in a b; do
    rm -f "$OUT/$b$i.trace"
    NVFP4_TRACE_OUT="$OUT/$b$i.trace" .carry/trace-$b/nvfp4bench --problem group_gemm --shape 192x3072x4096,320x3072x4096 \
      --variant persistent --timer cupti --no-floor --max-time 0.3 --quiet --json "$OUT/$b$i.json" >/dev/null 2>&1
    echo "==== trace-$b run $i exit $?"
    python3 scripts/dev/p183_summary.py "$OUT/$b$i.trace" | grep -E 'main CTAs|local stored|local synced|unit next_work|P187|first loop end|  done'
  done
done
