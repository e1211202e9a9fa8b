#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P217 (docs/perf-notes.md): the decoders' first group on the main CTAs' idle warp 3, a knob
# (NVFP4_PERSISTENT_HELPED_GROUPS) on one binary. ab: 0 against 1 on the decoder-CTA group cases;
# verify: group_gemm's token paths with the helpers; tests / sanitize with the helpers.
#   scripts/dev/p217_session.sh OUT [ab] [verify] [tests] [sanitize] [report]   (.carry/new with gpu_tests, .carry/base: main's build)
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
H=NVFP4_PERSISTENT_HELPED_GROUPS
step() {
  case $1 in
    ab)
      ab_cases "$OUT" "main=$BASE h0=$NEW:$H=0 h1=$NEW:$H=1" "group_gemm 192x3072x4096,320x3072x4096" \
        "group_gemm 128x4096x1536,384x4096x1536" ;;
    verify)
      verify_groups "$NEW" "$OUT" helped "one warp of each" "$H=1"
      for lg in 0 1 2; do
        verify_groups "$NEW" "$OUT" "stream-lg$lg-helped" "one warp of each" NVFP4_PERSISTENT_TOKENS=stream \
          NVFP4_PERSISTENT_LOCAL_GROUPS=$lg "$H=1"
      done ;;
    tests) (export "$H=1"; gpu_tests_run "$OUT" "Variants.GroupGemm:Variants.StreamTokensRelaunch:Variants.TokenModes" 200) ;;
    sanitize) sanitize_run "$NEW" "$OUT" group_gemm 100x2048x1024,200x2048x1024 NVFP4_PERSISTENT_TOKENS=stream "$H=1" ;;
    report) default_report "$NEW" "$OUT" default ;;
  esac
}
run_steps "ab verify tests sanitize"
