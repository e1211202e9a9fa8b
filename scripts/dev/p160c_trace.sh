#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine probe of docs/perf-notes.md P160c: where P160b's X1 build (P160's code without its n112
# loop, knob off) loses its 3-5 % against main, from the two trace builds' stamps (.carry/tbase,
# .carry/tx1: NVFP4BENCH_TRACE=ON) on G=2 [192,320] and [128,384], two launches each, alternated:
#   scripts/dev/p160c_trace.sh OUT
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    traces) for r in 1 2; do
        for b in tbase tx1; do
          for s in 192x3072x4096,320x3072x4096 128x4096x1536,384x4096x1536; do
            n=$b-${s%%x*}-$r
            rm -f .carry/trace && ln -s "$b" .carry/trace
            trace_run "$OUT" "$n" group_gemm "$s" NVFP4_PERSISTENT_EVEN=0 | head -n 1
            STEPS=$([ "${s%%x*}" = 192 ] && echo 64 || echo 24) python3 scripts/dev/unit_widths.py "$OUT/$n.trace"
          done
        done
      done ;;
  esac
}
run_steps traces
