#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine session of docs/perf-notes.md P144 (group_gemm's last 128-token tile by TMA stores from
# the whole ring), over .carry/base (de6fff2) and .carry/new (gpu_tests beside it):
#   scripts/dev/p144b_session.sh OUT [steps...]      steps: verify tests sanitize ab
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    verify) verify_groups $NEW "$OUT" new "128 tokens"
      verify_configs $NEW "$OUT" c3 "3 consumer" group_gemm "configs/gpumode/group_gemm.json configs/gemm_edges.json" \
        NVFP4_PERSISTENT_CTA=3x128 ;;
    tests) gpu_tests_run "$OUT" 'Variants.GroupGemm:Variants.PersistentGroup*:Variants.PersistentEverySchedule:Variants.TokenModes:Variants.StreamTokensRelaunch:Variants.FusedTokensRelaunch:Variants.PersistentRejectsBadKnobs' 400 ;;
    sanitize) sanitize_run $NEW "$OUT" group_gemm 40x2048x1024,130x1024x512,200x2048x1024,72x1004x512 \
      NVFP4_PERSISTENT_CTA=2x128 NVFP4_PERSISTENT_SCHED=data NVFP4_PERSISTENT_SPLITS=1 ;;
    ab) ab_problems "$OUT" ab group_gemm base=$BASE new=$NEW ;;
  esac
}
run_steps "verify tests sanitize ab"
