#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine session of docs/perf-notes.md P133 (global_split_reduce: a unit's peers' reads in
# flight together), over builds carried in .carry/base (main before it) and .carry/new:
#   scripts/dev/p133_session.sh OUT [steps...]      steps: verify ab tests report
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    verify) verify_gemms $NEW "$OUT" p133 "partial sums through L2" ;;
    ab) ab_problems "$OUT" ab gemm base=$BASE new=$NEW ;;
    tests) gpu_tests_run "$OUT" 'Variants.Gemm:Variants.GlobalSplitRelaunch' ;;
    report) default_report $NEW "$OUT" default ;;
  esac
}
run_steps "verify ab"
