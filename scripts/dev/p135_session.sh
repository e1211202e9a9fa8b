#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine session of docs/perf-notes.md P135 (group_gemm 2 x 256: 64-token units priced as
# 96-token ones), over builds carried in .carry/base (966b091) and .carry/new:
#   scripts/dev/p135_session.sh OUT [steps...]      steps: verify ab tests report
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    verify) verify_configs $NEW "$OUT" p135 "handed out by cost" group_gemm \
      "configs/gpumode/group_gemm.json configs/smoke.json configs/default.json" ;;
    ab) ab_problems "$OUT" ab group_gemm base=$BASE new=$NEW ;;
    tests) gpu_tests_run "$OUT" 'Variants.*:Plugin.*:Harness.*' 500 ;;
    report) default_report $NEW "$OUT" default ;;
  esac
}
run_steps "verify ab"
