#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine session of docs/perf-notes.md P148 (the decoder-CTA plans' local tokens by bulk
# copies), over .carry/base (de6fff2's report build) and .carry/new (gpu_tests beside it):
#   scripts/dev/p148_session.sh OUT [steps...]      steps: verify tests sanitize ab
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    verify) verify_gemms $NEW "$OUT" new "K steps by itself"
      verify_local_modes $NEW "$OUT" NVFP4_PERSISTENT_LOCAL_TMA "K steps by itself" ;;
    tests) gpu_tests_run "$OUT" 'Variants.Gemm:Variants.GroupGemm:Variants.StreamTokensRelaunch:Variants.TokenModes:Variants.PersistentRejectsBadKnobs' 400 ;;
    sanitize) sanitize_run $NEW "$OUT" group_gemm 40x512x512,200x768x1024,1x256x256 NVFP4_PERSISTENT_TOKENS=stream
      sanitize_run $NEW "$OUT" gemm 200x768x2048 NVFP4_PERSISTENT_TOKENS=stream NVFP4_PERSISTENT_LOCAL_GROUPS=2 ;;
    ab) ROUNDS=3 ab_problems "$OUT" ab "group_gemm gemm" base=$BASE new=$NEW new-t0=$NEW:NVFP4_PERSISTENT_LOCAL_TMA=0 ;;
  esac
}
run_steps "verify tests sanitize ab"
