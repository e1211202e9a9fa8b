#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine session closing P140-P143 (docs/perf-notes.md), over .carry/new (main's build, gpu_tests
# beside it): the group_gemm verify and GPU tests, then the default report and its comparison with the
# H200 baseline.   scripts/dev/p144_session.sh OUT [steps...]      steps: verify tests report
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    verify) verify_groups $NEW "$OUT" new "256 tokens" ;;
    tests) gpu_tests_run "$OUT" 'Variants.GroupGemm:Variants.PersistentGroup*:Variants.CutUnitsRelaunch:Variants.WideFusedTokensRelaunch:Variants.PersistentRejectsBadKnobs' 300 ;;
    report)
      default_report $NEW "$OUT" default
      $NEW compare results/baseline-nvidia-h200.json "$OUT/default.json" --markdown "$OUT/compare.md" >"$OUT/compare.txt" 2>&1
      echo "compare exit $?"; tail -n 6 "$OUT/compare.txt" ;;
  esac
}
run_steps "verify tests report"
