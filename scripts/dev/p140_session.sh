#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine session of docs/perf-notes.md P140 (a CTA's last tile out through its held stage) and
# P141 (group_gemm's mixed-width prices against P139's trace), over builds carried in .carry/base
# (main), .carry/h1 (NVFP4_LAST_HELD=1: the 2 x 256 kernels) and .carry/h2 (=2: every held kernel):
#   scripts/dev/p140_session.sh OUT [steps...]      steps: verify ab sanitize
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
H1=.carry/h1/nvfp4bench H2=.carry/h2/nvfp4bench
PB=NVFP4_PERSISTENT_MIXED_PRICES=0.445,0.50,0.592,0.70,0.80,0.92,1.0,5
PC=NVFP4_PERSISTENT_MIXED_PRICES=0.445,0.517,0.592,0.68,0.77,0.943,1.0,5
step() {
  case $1 in
    verify)
      for b in h1=$H1 h2=$H2; do
        verify_groups ${b#*=} "$OUT" ${b%%=*} "256 tokens"
      done
      verify_configs $BASE "$OUT" pB "256 tokens" group_gemm "configs/gpumode/group_gemm.json" $PB ;;
    ab) ab_problems "$OUT" ab group_gemm base=$BASE h1=$H1 h2=$H2 pB=$BASE:$PB pC=$BASE:$PC ;;
    sanitize) sanitize_run $H2 "$OUT" group_gemm 40x1024x512,76x1024x512,168x1024x512,200x1024x512 ;;
  esac
}
run_steps "verify ab"
