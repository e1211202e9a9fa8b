#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine session of docs/perf-notes.md P146 (the decoder-CTA plans' local token steps decoded
# inside the K loop), over .carry/base (de6fff2's report build) and .carry/new (gpu_tests beside it):
#   scripts/dev/p146_session.sh OUT [steps...]      steps: verify tests sanitize ab
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    verify) verify_gemms $NEW "$OUT" new "inside its K loop"
      verify_local_modes $NEW "$OUT" NVFP4_PERSISTENT_LOCAL_PIPE "inside its K loop" ;;
    tests) gpu_tests_run "$OUT" 'Variants.Gemm:Variants.GroupGemm:Variants.StreamTokensRelaunch:Variants.TokenModes:Variants.PersistentRejectsBadKnobs' 400 ;;
    sanitize) sanitize_run $NEW "$OUT" gemm 200x768x2048 NVFP4_PERSISTENT_TOKENS=stream NVFP4_PERSISTENT_LOCAL_GROUPS=2
      sanitize_run $NEW "$OUT" group_gemm 40x512x512,200x768x1024,1x256x256 NVFP4_PERSISTENT_TOKENS=stream ;;
    ab) ROUNDS=3 ab_problems "$OUT" ab "gemm group_gemm" base=$BASE new=$NEW new-p0=$NEW:NVFP4_PERSISTENT_LOCAL_PIPE=0 \
        new-lg2=$NEW:NVFP4_PERSISTENT_LOCAL_GROUPS=2 ;;
  esac
}
run_steps "verify tests sanitize ab"
