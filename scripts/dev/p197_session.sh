#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P197 (docs/perf-notes.md): the decoder-CTA kernels' local-token barrier replaced by an mbarrier that
# the token warp relays to the local stages (scripts/dev/p197_local_relay.patch on main). .carry/base =
# main's build, .carry/new = P197's (nvfp4bench, gpu_tests), .carry/smem = main with 9 KiB more
# launch shared memory in group_gemm's decoder-CTA kernel, unused (P196d, scripts/dev/p196d_smem_only.patch).
#   scripts/dev/p197_session.sh OUT [tests|verify|sanitize|ab ...]
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    tests) gpu_tests_run "$OUT" "${P197_TESTS:-Variants.GroupGemm:Variants.Gemm:Variants.StreamTokensRelaunch:Variants.TokenModes:Variants.PersistentGroupRoleLoops:Variants.PersistentEveryIssuerCount}" 300 ;;
    verify)
      verify_gemms "$NEW" "$OUT" default decoded
      verify_gemms "$NEW" "$OUT" stream-lg2 decoded NVFP4_PERSISTENT_TOKENS=stream NVFP4_PERSISTENT_LOCAL_GROUPS=2
      verify_gemms "$NEW" "$OUT" stream-lg1 decoded NVFP4_PERSISTENT_TOKENS=stream NVFP4_PERSISTENT_LOCAL_GROUPS=1 ;;
    sanitize)
      sanitize_run "$NEW" "$OUT" group_gemm 100x512x1024,200x512x1024 NVFP4_PERSISTENT_TOKENS=stream NVFP4_PERSISTENT_LOCAL_GROUPS=2
      sanitize_run "$NEW" "$OUT" gemm 128x1024x2048 NVFP4_PERSISTENT_TOKENS=stream NVFP4_PERSISTENT_LOCAL_GROUPS=1 ;;
    ab) ROUNDS=${ROUNDS:-3} MAXT=0.4 ab_problems "$OUT" ab "${P197_AB:-group_gemm gemm}" base=$BASE new=$NEW \
          smem=.carry/smem/nvfp4bench ;;
  esac
}
run_steps "tests verify sanitize ab"
