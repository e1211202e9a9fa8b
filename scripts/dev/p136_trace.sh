#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine probe P136 (docs/perf-notes.md): per-unit times of `persistent` on the two G=8
# group_gemm benchmark cases (a build with NVFP4BENCH_TRACE=ON carried in .carry/trace, the last
# timed launch of each), summarised by scripts/dev/unit_times.py.   scripts/dev/p136_trace.sh OUT
set -uo pipefail
OUT=$1
. "$(dirname "$0")/gpu_env.sh"
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
BIN=.carry/trace/nvfp4bench
for c in "g8b 40x7168x2048,76x7168x2048,168x7168x2048,72x7168x2048,164x7168x2048,148x7168x2048,196x7168x2048,160x7168x2048" \
         "g8a 80x4096x7168,176x4096x7168,128x4096x7168,72x4096x7168,64x4096x7168,248x4096x7168,96x4096x7168,160x4096x7168"; do
  set -- $c
  for parts in default 0; do
    env=(); [ $parts = 0 ] && env=(NVFP4_PERSISTENT_PARTS=0)
    f="$OUT/$1-$parts"
    env NVFP4_TRACE_OUT="$f.trace" "${env[@]}" $BIN --problem group_gemm --shape "$2" --variant persistent --timer cupti \
      --no-floor --max-time 0.3 --quiet --json "$f.json" >/dev/null 2>&1
    echo "==== $1 parts=$parts exit $? $(python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print(r['status'], r['timing']['median_us'], 'us |', r['plan'][-80:])" "$f.json")"
    python3 scripts/dev/unit_times.py "$f.trace"
  done
done
