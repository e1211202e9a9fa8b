#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P198 (docs/perf-notes.md): local steps not a multiple of 4 (NVFP4_PERSISTENT_LOCAL_STEPS, branch
# p198-local-steps, scripts/dev/p198_local_steps.patch). .carry/base = main's build, .carry/new = P198's.
#   scripts/dev/p198_session.sh OUT [tests|verify|sanitize|ab ...]
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    tests) gpu_tests_run "$OUT" "${P198_TESTS:-Variants.GroupGemm:Variants.StreamTokensRelaunch:Variants.TokenModes}" 300 ;;
    verify)
      verify_gemms "$NEW" "$OUT" default decoded
      local n
      for n in 6 5 2; do
        verify_gemms "$NEW" "$OUT" stream-ls$n decoded NVFP4_PERSISTENT_TOKENS=stream NVFP4_PERSISTENT_LOCAL_STEPS=$n
      done ;;
    sanitize)
      sanitize_run "$NEW" "$OUT" group_gemm 100x512x1024,200x512x1024 NVFP4_PERSISTENT_TOKENS=stream NVFP4_PERSISTENT_LOCAL_STEPS=6 ;;
    ab)
      ROUNDS=${ROUNDS:-3} MAXT=0.4 ab_problems "$OUT" ab "${P198_AB:-group_gemm}" base=$BASE new=$NEW \
        ls6=$NEW:NVFP4_PERSISTENT_LOCAL_STEPS=6 ls5=$NEW:NVFP4_PERSISTENT_LOCAL_STEPS=5 ;;
    ab-gemm)
      ROUNDS=${ROUNDS:-3} MAXT=0.4 ab_problems "$OUT" ab gemm base=$BASE new=$NEW ls6=$NEW:NVFP4_PERSISTENT_LOCAL_STEPS=6 ;;
  esac
}
run_steps "tests verify ab"
