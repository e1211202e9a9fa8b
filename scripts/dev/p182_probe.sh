#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P182 probe (docs/perf-notes.md): P179's emulated 64-row CTA (.carry/halves) against the same with only
# every other step's token tile copied (.carry/halftok: scripts/dev/p182_halves_tokens_probe.patch with
# NVFP4_PROBE_HALVES=1 NVFP4_PROBE_TOKENS_HALF=1, trace build), gemm 128x7168x16384, LOCAL_GROUPS=0.
#   scripts/dev/p182_probe.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
for b in ${BUILDS:-halves halftok}; do
  for r in 1 2; do
    n=g16384-$b-$r
    NVFP4_PERSISTENT_LOCAL_GROUPS=0 NVFP4_TRACE_OUT="$OUT/$n.trace" timeout 40 .carry/$b/nvfp4bench --problem gemm \
      --shape 128x7168x16384 --variant persistent --timer cupti --no-floor --max-time 0.3 --quiet --json "$OUT/$n.json" \
      >/dev/null 2>&1
    echo "== $n exit $?"
    python3 scripts/dev/loop_span.py "$OUT/$n.trace"
  done
done
