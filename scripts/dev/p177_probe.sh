#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P177 probe (docs/perf-notes.md): how far apart the two ranks of a split-K pair end their K loops,
# and what each rank then takes to its last stamp (main's trace build in .carry/trace).
#   scripts/dev/p177_probe.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
for c in g2048:"gemm 128x7168x2048" g16384:"gemm 128x7168x16384" g4096:"gemm 128x4096x7168"; do
  n=${c%%:*} s=${c#*:}
  for r in 1 2; do
    TRACE_LINES=3 trace_run "$OUT" "$n-$r" ${s% *} ${s#* } | head -n 3
    python3 scripts/dev/pair_skew.py "$OUT/$n-$r.trace"
  done
done
