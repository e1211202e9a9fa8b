#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P209 (docs/perf-notes.md): main's trace build with branch-free stamps (.carry/trace) against its
# report build (.carry/base): the cases' cupti times, the stamps' phases and the first units' K-loop
# spans by width (to set against k_slope.sh's 0.305 us a step).   scripts/dev/p209_trace.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
for i in 1 2; do
  for c in "group_gemm 192x3072x4096,320x3072x4096" "gemm 128x7168x2048" "gemm 128x7168x16384"; do
    set -- $c
    trace_run "$OUT" "t$i-$1-$2" "$1" "$2" 2>/dev/null | head -n 14
    python3 scripts/dev/unit_times.py "$OUT/t$i-$1-$2.trace" 2>&1 | head -n 8
    python3 scripts/dev/loop_span.py "$OUT/t$i-$1-$2.trace" 2>&1 | head -n 4
    rm -f "$OUT/t$i-$1-$2.trace"
  done
done
echo "== report build (cupti, cold L2)"
for c in "group_gemm 192x3072x4096,320x3072x4096" "gemm 128x7168x2048" "gemm 128x7168x16384"; do
  set -- $c
  $BASE --problem "$1" --shape "$2" --variant persistent --timer cupti --no-floor --max-time 0.3 --quiet --json "$OUT/r.json" >/dev/null 2>&1
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print(sys.argv[2], r['status'], r['timing']['median_us'], 'us')" "$OUT/r.json" "$1 $2"
done
