#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine session of docs/perf-notes.md P140 as merged (the 2 x 256 group kernels' last tile
# through its held stage), over .carry/base (main before it) and .carry/new (gpu_tests beside it):
#   scripts/dev/p140b_session.sh OUT [steps...]      steps: verify tests sanitize ab
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    verify) verify_groups $NEW "$OUT" new "256 tokens"
      verify_configs $NEW "$OUT" wide "256 tokens" group_gemm "configs/gpumode/group_gemm.json configs/gemm_edges.json" \
        NVFP4_PERSISTENT_CTA=2x256 ;;
    tests) gpu_tests_run "$OUT" 'Variants.GroupGemm:Variants.Persistent*:Variants.CutUnitsRelaunch:Variants.WideFusedTokensRelaunch:Variants.StreamTokensRelaunch:Variants.TokenModes' 500 ;;
    sanitize) sanitize_run $NEW "$OUT" group_gemm 40x1024x512,76x1024x512,168x1024x512,200x1024x512,256x512x1024 \
      NVFP4_PERSISTENT_CTA=2x256 ;;
    ab) ab_problems "$OUT" ab group_gemm base=$BASE new=$NEW ;;
  esac
}
run_steps "verify tests sanitize ab"
