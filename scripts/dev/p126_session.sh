#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine session of docs/perf-notes.md P126 (fused plans: the weights' copies beyond the first
# N held until the CTA's share of the decode is counted), over builds carried in .carry/base (main
# before it) and .carry/new:   scripts/dev/p126_session.sh OUT [steps...]
#   steps: verify ab (the probe knob), then for the merged default: tests sanitize ab2 report
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
for step in ${STEPS:-verify ab}; do
  echo "==== $step"
  case $step in
    verify)  # the weights held after 1, 2 and 4 K steps (fused plans among the cases)
      for n in 1 2 4; do verify_gemms $NEW "$OUT" "w$n" "decoded in the main launch" NVFP4_PERSISTENT_WEIGHTS_AHEAD=$n; done ;;
    ab)
      ab_problems "$OUT" ab "gemm group_gemm" base=$BASE new=$NEW new-w1=$NEW:NVFP4_PERSISTENT_WEIGHTS_AHEAD=1 \
        new-w2=$NEW:NVFP4_PERSISTENT_WEIGHTS_AHEAD=2 new-w4=$NEW:NVFP4_PERSISTENT_WEIGHTS_AHEAD=4 ;;
    tests)
      gpu_tests_run "$OUT" 'Variants.Gemm:Variants.GroupGemm:Variants.FusedTokensRelaunch:Variants.GlobalSplitRelaunch:Variants.StreamTokensRelaunch:Variants.PersistentRejectsBadKnobs:Variants.TokenModes' ;;
    sanitize)  # fused plans of gemm (through L2 too) and group_gemm, weights held by default
      for tool in memcheck racecheck; do
        for c in "gemm 128x1024x2048" "gemm 128x2048x2048" "group_gemm 40x512x512,200x768x1024,1x256x256"; do
          set -- $c
          NVFP4_PERSISTENT_TOKENS=fused timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $NEW --problem $1 \
            --shape $2 --variant persistent --verify-only --quiet --json "$OUT/san.json" >"$OUT/$tool-$1.txt" 2>&1
          echo "$tool $c exit $? $(grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|Internal" "$OUT/$tool-$1.txt" | tail -n 1)"
        done
      done ;;
    ab2) ab_problems "$OUT" ab2 "gemm group_gemm" base=$BASE new=$NEW new-w0=$NEW:NVFP4_PERSISTENT_WEIGHTS_AHEAD=0 ;;
    report) default_report $NEW "$OUT" default ;;
  esac
done
