#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P167 (docs/perf-notes.md): group_gemm's fused share over the producer warpgroup too. main's dc683dd
# build in .carry/base, the branch's in .carry/new (nvfp4bench, gpu_tests), its trace build in .carry/trace.
#   scripts/dev/p167_session.sh OUT [ab|verify|tests|sanitize|trace ...]
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    ab) ROUNDS=4 ab_problems "$OUT" ab "group_gemm" base=$BASE new=$NEW ;;
    verify)
      verify_groups "$NEW" "$OUT" default "decoded in the main launch"
      verify_groups "$NEW" "$OUT" fused "decoded in the main launch" NVFP4_PERSISTENT_TOKENS=fused ;;
    tests) gpu_tests_run "$OUT" 'Variants.GroupGemm:Variants.TokenModes:Variants.FusedTokensRelaunch:Variants.PersistentGroup*' 300 ;;
    sanitize)
      mkdir -p "$OUT/san"
      sanitize_run "$NEW" "$OUT/san" group_gemm 128x1024x1536,384x1024x1536 NVFP4_PERSISTENT_TOKENS=fused ;;
    trace)
      trace_spread "$OUT" g2b group_gemm 128x4096x1536,384x4096x1536 ;;
  esac
}
run_steps "ab verify tests sanitize trace"
