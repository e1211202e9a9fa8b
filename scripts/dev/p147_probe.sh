#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P147 probe (docs/perf-notes.md): the decoder-CTA plans' start with L2 cold and warm, on main's trace
# build (.carry/trace): G=2 [192,320] and gemm 128x7168x2048, stamps and unit times.
#   scripts/dev/p147_probe.sh OUT
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
for c in "group_gemm 192x3072x4096,320x3072x4096 g2a" "gemm 128x7168x2048 gemm2048"; do
  set -- $c
  for l2 in cold warm; do
    rm -f "$OUT/$3-$l2.trace"
    NVFP4_TRACE_OUT="$OUT/$3-$l2.trace" .carry/trace/nvfp4bench --problem $1 --shape $2 --variant persistent \
      --timer cupti --no-floor --max-time 0.3 --quiet --l2 $l2 --json "$OUT/$3-$l2.json" >/dev/null 2>&1
    echo "==== $3 l2 $l2 exit $? $(python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print(r['status'], r['timing']['median_us'], 'us')" "$OUT/$3-$l2.json")"
    python3 scripts/dev/trace_summary.py "$OUT/$3-$l2.trace" | grep -v "^=="
    python3 scripts/dev/unit_times.py "$OUT/$3-$l2.trace" | head -4
  done
done
