#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine probe of docs/perf-notes.md P160: the K-step time of group_gemm's 2 x 128 units by
# wgmma width, from the trace build's per-unit stamps on G=2 [192,320] (64 and 128 wide), by default
# and with NVFP4_PERSISTENT_NARROW=96 (which, as run, left its 64-live tiles at 64: the same widths;
# the 96-wide figure came from G=2 [224,352], results/2026-11-29_nvidia-h200_2e2fb82_p160-widths.txt):
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
