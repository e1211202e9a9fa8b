#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine probe P141 (docs/perf-notes.md): G=8 N=7168's CTA ends under two price sets against the
# defaults (the trace build in .carry/trace), each CTA's units and end printed by width pattern.
#   scripts/dev/p141_trace.sh OUT
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
OUT=$1
session_start "$OUT"
G8B=40x7168x2048,76x7168x2048,168x7168x2048,72x7168x2048,164x7168x2048,148x7168x2048,196x7168x2048,160x7168x2048
for s in def pB=0.445,0.50,0.592,0.70,0.80,0.92,1.0,5 pC=0.445,0.517,0.592,0.68,0.77,0.943,1.0,5; do
  name=${s%%=*} env=()
  [ "$name" != def ] && env=(NVFP4_PERSISTENT_MIXED_PRICES=${s#*=})
  trace_run "$OUT" "g8b-$name" group_gemm "$G8B" "${env[@]}" 2>/dev/null | head -n 1
  python3 scripts/dev/cta_patterns.py "$OUT/g8b-$name.trace" 2>/dev/null | head -n 10
  [ "$name" = def ] && python3 scripts/dev/unit_times.py "$OUT/g8b-$name.trace"
done
