#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine probe of docs/perf-notes.md P160: the K-step time of group_gemm's 2 x 128 units by
# wgmma width (64, 96, 128), from the trace build's per-unit stamps on G=2 [192,320] with its partly
# filled tiles at 64 (default) and forced to 96 (NVFP4_PERSISTENT_NARROW=96):
#   scripts/dev/p160_probe.sh OUT
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    widths) for r in 1 2; do
        trace_run "$OUT" n64-$r group_gemm 192x3072x4096,320x3072x4096
        trace_run "$OUT" n96-$r group_gemm 192x3072x4096,320x3072x4096 NVFP4_PERSISTENT_NARROW=96
      done
      for f in "$OUT"/n*.trace; do echo "== $f"; python3 scripts/dev/unit_widths.py "$f"; done ;;
  esac
}
run_steps "widths"
