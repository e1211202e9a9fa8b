#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P214b (docs/perf-notes.md): P214 with group_gemm's decoder-CTA plans at 4 local steps by default:
# main's build against it on the decoder-CTA cases, the GPU tests of the token paths, and the three
# sanitizers on a decoder-CTA group_gemm case and a gemm one.
#   scripts/dev/p214b_session.sh OUT [ab] [tests] [sanitize] [report]   (.carry/new with gpu_tests, .carry/base)
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    ab)
      for c in "group_gemm 192x3072x4096,320x3072x4096" "gemm 128x7168x2048"; do
        set -- $c
        echo "== $1 $2"
        python3 scripts/dev/ab.py --rounds "${ROUNDS:-3}" --out "$OUT/ab_$1_${2%%,*}" --build "main=$BASE" --build "new=$NEW" \
          -- --problem "$1" --shape "$2" --variant persistent --timer cupti --no-floor --max-time 0.4 2>&1 | tail -n 3
      done ;;
    tests) gpu_tests_run "$OUT" "Variants.GroupGemm:Variants.Gemm:Variants.DualGemm:Variants.StreamTokensRelaunch:Variants.TokenModes:Variants.Persistent*" 330 ;;
    sanitize)
      sanitize_run "$NEW" "$OUT" group_gemm 100x512x1024,200x512x1024 NVFP4_PERSISTENT_TOKENS=stream
      sanitize_run "$NEW" "$OUT" gemm 128x1024x2048 NVFP4_PERSISTENT_TOKENS=stream ;;
    report) default_report "$NEW" "$OUT" report ;;
  esac
}
run_steps "ab sanitize tests"
