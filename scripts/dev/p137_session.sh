#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine session of docs/perf-notes.md P137: group_gemm 2 x 256's unit prices searched around
# the defaults by the timed launch itself (NVFP4_PERSISTENT_MIXED_PRICES), over .carry/new:
#   scripts/dev/p137_session.sh OUT [steps...]      steps: ab fused report
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
K=NVFP4_PERSISTENT_MIXED_PRICES
P=0.517,0.592,0.631,0.77,0.943,1.0  # the default prices of widths 96..256
step() {
  case $1 in
    ab) ab_problems "$OUT" ab group_gemm new=$NEW e3=$NEW:$K=0.445,$P,3 e7=$NEW:$K=0.445,$P,7 e10=$NEW:$K=0.445,$P,10 \
          w40=$NEW:$K=0.40,$P,5 w48=$NEW:$K=0.48,$P,5 ;;
    fused)  # G=8 N=7168 with the tokens decoded in the launch, whose kernel can cut units (kParts)
      ab_problems "$OUT" fused group_gemm new=$NEW fused=$NEW:NVFP4_PERSISTENT_TOKENS=fused \
        fused-parts=$NEW:NVFP4_PERSISTENT_TOKENS=fused,NVFP4_PERSISTENT_PARTS=1 ;;
    report) default_report $NEW "$OUT" default ;;
  esac
}
run_steps "ab"
