#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine session of docs/perf-notes.md P146c (group_gemm's decoder-CTA kernel: local steps 2-7
# decoded inside its first K steps, unrolled and branch-free), over .carry/base (de6fff2's report
# build) and .carry/new (gpu_tests beside it):
#   scripts/dev/p146c_session.sh OUT [steps...]      steps: verify tests sanitize ab
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    verify) verify_gemms $NEW "$OUT" new "inside its K loop"
      for lg in 1 2; do
        for pipe in 0 1; do
          verify_configs $NEW "$OUT" "stream-lg$lg-p$pipe" "inside its K loop" "gemm group_gemm" \
            "configs/gpumode/gemm.json configs/gpumode/group_gemm.json configs/gemm_edges.json configs/smoke.json" \
            NVFP4_PERSISTENT_TOKENS=stream NVFP4_PERSISTENT_LOCAL_GROUPS=$lg NVFP4_PERSISTENT_LOCAL_PIPE=$pipe
        done
      done ;;
    tests) gpu_tests_run "$OUT" 'Variants.Gemm:Variants.GroupGemm:Variants.StreamTokensRelaunch:Variants.TokenModes:Variants.PersistentRejectsBadKnobs' 400 ;;
    sanitize) sanitize_run $NEW "$OUT" group_gemm 40x512x512,200x768x1024,1x256x256 NVFP4_PERSISTENT_TOKENS=stream
      sanitize_run $NEW "$OUT" group_gemm 192x3072x4096,320x3072x4096 ;;
    ab) ROUNDS=3 ab_problems "$OUT" ab "group_gemm gemm" base=$BASE new=$NEW new-p0=$NEW:NVFP4_PERSISTENT_LOCAL_PIPE=0 ;;
  esac
}
run_steps "verify tests sanitize ab"
