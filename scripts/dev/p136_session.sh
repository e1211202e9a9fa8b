#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine session of docs/perf-notes.md P136 (group_gemm 2 x 256's mixed-width prices refit,
# NVFP4_PERSISTENT_MIXED_PRICES), over builds carried in .carry/base (966b091) and .carry/new:
#   scripts/dev/p136_session.sh OUT [steps...]      steps: verify ab tests report
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
A=0.560,0.619,0.683,0.751,0.816,0.943,1.0,4
B=0.60,0.65,0.683,0.745,0.80,0.943,1.0,5
C=0.635,0.687,0.683,0.743,0.787,0.943,1.0,4
step() {
  case $1 in
    verify) for p in $A $C; do verify_configs $NEW "$OUT" "p$p" "handed out by cost" group_gemm \
      "configs/gpumode/group_gemm.json configs/smoke.json" NVFP4_PERSISTENT_MIXED_PRICES=$p; done ;;
    ab) ab_problems "$OUT" ab group_gemm base=$BASE new=$NEW pA=$NEW:NVFP4_PERSISTENT_MIXED_PRICES=$A \
      pB=$NEW:NVFP4_PERSISTENT_MIXED_PRICES=$B pC=$NEW:NVFP4_PERSISTENT_MIXED_PRICES=$C ;;
    tests) gpu_tests_run "$OUT" 'Variants.PersistentRejectsBadKnobs:Variants.GroupGemm:Variants.PersistentGroupNarrowAndBalance:Variants.CutUnitsRelaunch' ;;
    report) default_report $NEW "$OUT" default ;;
  esac
}
run_steps "verify ab"
