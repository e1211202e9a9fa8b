#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P187 (docs/perf-notes.md): group_gemm's decoder-CTA kernel with the first unit's last 2 local steps
# decoded by producer warp 3 (branch p187-producer-local-tail). .carry/base = main's build,
# .carry/new = the branch's (nvfp4bench, gpu_tests).
#   scripts/dev/p187_session.sh OUT [tests|verify|ab ...]
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    tests) gpu_tests_run "$OUT" 'Variants.GroupGemm:Variants.StreamTokensRelaunch:Variants.TokenModes:Variants.PersistentGroupRoleLoops:Variants.PersistentEveryIssuerCount' 400 ;;
    verify)
      verify_groups "$NEW" "$OUT" default decoded
      for lg in 1 2; do
        verify_groups "$NEW" "$OUT" stream-lg$lg decoded NVFP4_PERSISTENT_TOKENS=stream NVFP4_PERSISTENT_LOCAL_GROUPS=$lg
      done ;;
    ab)
      ROUNDS=4 MAXT=0.5 ab_problems "$OUT" ab group_gemm base=$BASE new=$NEW
      ROUNDS=2 MAXT=0.5 ab_problems "$OUT" ab gemm base=$BASE new=$NEW ;;
  esac
}
run_steps "tests verify ab"
