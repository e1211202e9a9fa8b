#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine session of a change to `persistent`'s fused token path (docs/perf-notes.md P129, P131),
# over builds carried in .carry/base (main) and .carry/new:
#   [TESTS=gtest-filter] scripts/dev/fused_session.sh OUT [steps...]   (verify tests ab)
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    verify)  # as planned and with the tokens forced fused (2 x 128)
      verify_gemms $NEW "$OUT" default "decoded in the main launch"
      verify_gemms $NEW "$OUT" fused "decoded in the main launch" NVFP4_PERSISTENT_TOKENS=fused NVFP4_PERSISTENT_CTA=2x128 ;;
    tests)
      gpu_tests_run "$OUT" "${TESTS:-Variants.FusedTokensRelaunch:Variants.GlobalSplitRelaunch:Variants.TokenModes:Variants.Gemm:Variants.GroupGemm:Variants.StreamTokensRelaunch:Variants.PersistentEveryIssuerCount:Variants.PersistentGroupRoleLoops:Variants.WideFusedTokensRelaunch}" ;;
    ab) ab_problems "$OUT" ab "gemm group_gemm" base=$BASE new=$NEW ;;
  esac
}
run_steps "verify tests ab"
