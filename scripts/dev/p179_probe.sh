#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P179 probe (docs/perf-notes.md): the K loop of gemm's decoder-CTA kernel with each CTA copying twice
# the token tiles for the same MMAs (a 64-row CTA on alternate K steps, emulated: .carry/halves, a trace
# build with NVFP4_PROBE_HALVES=1, outputs wrong on purpose) against main's trace build (.carry/trace).
#   scripts/dev/p179_probe.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
for c in g2048:128x7168x2048 g16384:128x7168x16384; do
  for b in trace halves; do
    for r in 1 2; do
      n=${c%%:*}-$b-$r
      rm -f "$OUT/$n.trace"
      # No local token steps (LOCAL_GROUPS=0): the decoder CTAs skip each rank's first group, which the
      # widened ranges of the halves build would then wait for forever.
      NVFP4_PERSISTENT_LOCAL_GROUPS=0 NVFP4_TRACE_OUT="$OUT/$n.trace" timeout 40 .carry/$b/nvfp4bench --problem gemm --shape ${c#*:} --variant persistent \
        --timer cupti --no-floor --max-time 0.3 --quiet --json "$OUT/$n.json" >/dev/null 2>&1
      echo "== $n $(python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print(r['status'], (r.get('timing') or {}).get('median_us'))" "$OUT/$n.json")"
      python3 scripts/dev/loop_span.py "$OUT/$n.trace"
    done
  done
done
