#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine probe P139 (docs/perf-notes.md): where a unit's time between K loops goes, on the two
# G=8 group_gemm benchmark cases (the trace build, NVFP4BENCH_TRACE=ON, carried in .carry/trace),
# summarised per width and place by scripts/dev/unit_times.py.   scripts/dev/p139_trace.sh OUT
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
OUT=$1
session_start "$OUT"
for c in "g8b 40x7168x2048,76x7168x2048,168x7168x2048,72x7168x2048,164x7168x2048,148x7168x2048,196x7168x2048,160x7168x2048" \
         "g8a 80x4096x7168,176x4096x7168,128x4096x7168,72x4096x7168,64x4096x7168,248x4096x7168,96x4096x7168,160x4096x7168"; do
  set -- $c
  trace_run "$OUT" "$1" group_gemm "$2" >/dev/null
  echo "==== $1 $(python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print(r['status'], r['timing']['median_us'], 'us |', r['plan'][-90:])" "$OUT/$1.json")"
  python3 scripts/dev/unit_times.py "$OUT/$1.trace"
done
