#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P181 probe (docs/perf-notes.md): P179's emulated 64-row CTA with a 10-stage ring (.carry/halves10:
# scripts/dev/p181_halves_stages_probe.patch with NVFP4_PROBE_HALVES=1, NVFP4_PROBE_STAGES=10, trace
# build) against the 8-stage one (.carry/halves) and main's trace build (.carry/trace), gemm
# 128x7168x16384, LOCAL_GROUPS=0.   scripts/dev/p181_probe.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
for b in ${BUILDS:-trace halves halves10}; do
  for r in 1 2; do
    n=g16384-$b-$r
    NVFP4_PERSISTENT_LOCAL_GROUPS=0 NVFP4_TRACE_OUT="$OUT/$n.trace" timeout 40 .carry/$b/nvfp4bench --problem gemm \
      --shape 128x7168x16384 --variant persistent --timer cupti --no-floor --max-time 0.3 --quiet --json "$OUT/$n.json" \
      >/dev/null 2>&1
    echo "== $n exit $?"
    python3 scripts/dev/loop_span.py "$OUT/$n.trace"
  done
done
