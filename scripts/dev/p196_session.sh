#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P196 / P196b / P196c (docs/perf-notes.md): branch p196-local-half. .carry/base = main's build, .carry/new =
# the branch's (nvfp4bench, gpu_tests); the trace step: .carry/trace-a / trace-b the branch's / main's
# trace builds (scripts/dev/p196_trace.sh).
#   scripts/dev/p196_session.sh OUT [tests|verify|verify-short|sanitize|ab|trace ...]
# P196 ran the default steps; P196b and P196c ran scripts/dev/p196b_session.sh (its steps, below).
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  local groups="configs/gpumode/group_gemm.json configs/gemm_edges.json configs/smoke.json"
  local forced=(NVFP4_PERSISTENT_TOKENS=stream NVFP4_PERSISTENT_LOCAL_GROUPS=2)
  case $1 in
    tests) gpu_tests_run "$OUT" "${P196_TESTS:-Variants.GroupGemm:Variants.StreamTokensRelaunch:Variants.TokenModes:Variants.PersistentGroupRoleLoops:Variants.PersistentEveryIssuerCount}" 300 ;;
    verify)
      verify_configs "$NEW" "$OUT" default decoded group_gemm "$groups"
      verify_configs "$NEW" "$OUT" stream-lg2 decoded group_gemm "$groups" "${forced[@]}"
      verify_configs "$NEW" "$OUT" stream-lg1 decoded group_gemm "configs/gemm_edges.json" NVFP4_PERSISTENT_TOKENS=stream \
        NVFP4_PERSISTENT_LOCAL_GROUPS=1 ;;
    verify-short)
      verify_configs "$NEW" "$OUT" default decoded group_gemm "$groups"
      verify_configs "$NEW" "$OUT" stream-lg2 decoded group_gemm "configs/gemm_edges.json configs/smoke.json" "${forced[@]}" ;;
    sanitize) sanitize_run "$NEW" "$OUT" group_gemm 100x512x1024,200x512x1024 "${forced[@]}" ;;
    ab) ROUNDS=3 MAXT=0.4 ab_problems "$OUT" ab "${P196_AB:-group_gemm gemm}" base=$BASE new=$NEW ;;
    trace) P196_RUNS=1 bash scripts/dev/p196_trace.sh "$OUT/trace" | grep -E '====|128 wide|unit next_work|P196|first loop end|  done' ;;
  esac
}
run_steps "tests verify sanitize ab"
