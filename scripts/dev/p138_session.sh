#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine session of docs/perf-notes.md P138 (gemm's 4-rank split-K: pairs through clusters of
# 2, then quarters through L2), over builds carried in .carry/base (b076ca0) and .carry/new:
#   scripts/dev/p138_session.sh OUT [steps...]      steps: verify ab tests sanitize
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    verify) verify_gemms $NEW "$OUT" pairs "after pairs" NVFP4_PERSISTENT_PAIRS=1
      verify_configs $NEW "$OUT" s4 "after pairs" gemm "configs/gemm_edges.json configs/smoke.json" \
        NVFP4_PERSISTENT_PAIRS=1 NVFP4_PERSISTENT_REDUCE=global NVFP4_PERSISTENT_SPLITS=4 ;;
    ab) ab_problems "$OUT" ab gemm base=$BASE new=$NEW pairs=$NEW:NVFP4_PERSISTENT_PAIRS=1 ;;
    tests) NVFP4_PERSISTENT_PAIRS=1 gpu_tests_run "$OUT" 'Variants.Gemm:Variants.GlobalSplitRelaunch:Variants.PersistentRejectsBadKnobs' ;;
    sanitize) sanitize_run $NEW "$OUT" gemm 128x1024x2048 NVFP4_PERSISTENT_PAIRS=1 NVFP4_PERSISTENT_REDUCE=global \
      NVFP4_PERSISTENT_SPLITS=4 ;;
  esac
}
run_steps "verify ab"
