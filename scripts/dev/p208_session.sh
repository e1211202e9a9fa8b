#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P208 (docs/perf-notes.md): group_gemm's decoder-CTA kernel storing its local tokens after the loop's
# first next_work. .carry/base = dadeb62's report build, .carry/new = the change's.
#   scripts/dev/p208_session.sh OUT [verify|ab|slope|tests|sanitize ...]
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    verify) verify_token_paths verify_groups "$NEW" "$OUT" ;;
    ab) ROUNDS=${ROUNDS:-3} MAXT=0.5 ab_problems "$OUT" ab "${P208_AB:-group_gemm gemm}" base=$BASE new=$NEW ;;
    slope)
      for b in base new; do
        echo "-- $b"
        bash scripts/dev/k_slope.sh ".carry/$b/nvfp4bench" group_gemm 192x3072xK,320x3072xK "512 4096 8192"
      done ;;
    tests) gpu_tests_run "$OUT" "Variants.GroupGemm:Variants.StreamTokensRelaunch:Variants.TokenModes:Variants.Persistent*" 400 ;;
    sanitize) sanitize_run "$NEW" "$OUT" group_gemm 192x256x512,320x256x512 NVFP4_PERSISTENT_TOKENS=stream ;;
  esac
}
run_steps "verify ab slope"
