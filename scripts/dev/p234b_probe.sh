#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P234b probe (docs/perf-notes.md): gemm 128x4096x7168 traced on main's trace build (.carry/trace/) and
# on the P234 stagger patch's (.carry/tstag/, -DNVFP4_PROBE_STAGGER=1) at e = 0 and 2, twice each;
# scripts/dev/tile_skew.py per run.
#   scripts/dev/p234b_probe.sh OUT
. "$(dirname "$0")/session_lib.sh"
OUT=$1
session_start "$OUT"
for r in 1 2; do
  for m in "trace:trace:" "tstag-e0:tstag:NVFP4_PROBE_STAGGER_STEPS=0" "tstag-e2:tstag:NVFP4_PROBE_STAGGER_STEPS=2"; do
    IFS=: read -r n b vars <<<"$m"
    rm -f "$OUT/$n-$r.trace"
    env $vars NVFP4_TRACE_OUT="$OUT/$n-$r.trace" timeout 25 .carry/$b/nvfp4bench --problem gemm --shape 128x4096x7168 \
      --variant persistent --timer cupti --no-floor --max-time 0.3 --quiet --json "$OUT/$n.json" >/dev/null 2>&1
    echo "$n-$r $(python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print(r['status'], (r.get('timing') or {}).get('median_us'))" "$OUT/$n.json" 2>&1 | tail -1)"
    python3 scripts/dev/tile_skew.py "$OUT/$n-$r.trace" 2>&1 | tail -2
    rm -f "$OUT/$n.json" "$OUT/$n-$r.trace"
  done
done
