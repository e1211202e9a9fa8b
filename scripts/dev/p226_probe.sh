#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P226 probe (docs/perf-notes.md): the emulated 64-row CTA (P179) with its two consumer warpgroups
# held in step by a named barrier after every K step's `full` wait. Four trace builds carried in
# .carry/<name>/ (scripts/dev/p226_halves_lockstep.patch): trace (main's code), halves
# (NVFP4_PROBE_HALVES=1, outputs wrong on purpose), hlock (halves + NVFP4_PROBE_LOCKSTEP=1), lock
# (main + the barrier); P226b: hnone (halves with no token tile copied: NVFP4_PROBE_TOKENS_NONE=1),
# tnone (main with none). BUILDS (environment) picks
# which, alternated, two launches each, LOCAL_GROUPS=0 as P179; PROBE_ENV (environment) adds
# VAR=VALUE settings to every run (P230b: NVFP4_PERSISTENT_TOKENS=prepass).
#   scripts/dev/p226_probe.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
for r in 1 2; do
  for c in g16384:128x7168x16384 g2048:128x7168x2048; do
    for b in ${BUILDS:-trace halves hlock lock}; do
      n=${c%%:*}-$b-$r
      rm -f "$OUT/$n.trace"
      env NVFP4_PERSISTENT_LOCAL_GROUPS=0 ${PROBE_ENV:-} NVFP4_TRACE_OUT="$OUT/$n.trace" timeout 25 .carry/$b/nvfp4bench --problem gemm --shape ${c#*:} --variant persistent \
        --timer cupti --no-floor --max-time 0.3 --quiet --json "$OUT/$n.json" >/dev/null 2>&1
      echo "$n $(python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print(r['status'], (r.get('timing') or {}).get('median_us'))" "$OUT/$n.json" 2>&1 | tail -1): $(python3 scripts/dev/loop_span.py "$OUT/$n.trace" 2>&1 | tail -1)"
      rm -f "$OUT/$n.json" "$OUT/$n.trace"
    done
  done
done
