#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine session of docs/perf-notes.md P145 (never-reset counts without waiting for the atomic's
# reply), over .carry/base (de6fff2) and .carry/new (gpu_tests beside it):
#   scripts/dev/p145_session.sh OUT [steps...]      steps: verify tests sanitize ab
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    verify) verify_gemms $NEW "$OUT" new "main launch"
      verify_configs $NEW "$OUT" fused "main launch" gemm "configs/gpumode/gemm.json configs/gemm_edges.json" \
        NVFP4_PERSISTENT_TOKENS=fused
      verify_configs $NEW "$OUT" glob "partial sums through L2" gemm "configs/gemm_edges.json" \
        NVFP4_PERSISTENT_REDUCE=global ;;
    tests) gpu_tests_run "$OUT" 'Variants.Gemm:Variants.GroupGemm:Variants.FusedTokensRelaunch:Variants.WideFusedTokensRelaunch:Variants.GlobalSplitRelaunch:Variants.CutUnitsRelaunch:Variants.TensorCoreWarps' 300 ;;
    sanitize) sanitize_run $NEW "$OUT" gemm 128x4096x7168 ;;
    ab) ab_problems "$OUT" ab "gemm group_gemm" base=$BASE new=$NEW
      python3 scripts/dev/ab.py --rounds 2 --out "$OUT/tc" --build base=$BASE --build new=$NEW -- \
        --config configs/gpumode/gemm.json --role benchmark --variant tensor-core --timer cupti --no-floor --max-time 1 ;;
  esac
}
run_steps "verify tests sanitize ab"
