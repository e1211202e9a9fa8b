#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P216 (docs/perf-notes.md): the decoder CTAs' first-round gate (scripts/dev/p216_first_round_gate.patch, not merged). ab: 0b2cbfe's build against the new
# one on the decoder-CTA cases; verify: the token paths; tests: the GPU tests of the token paths;
# sanitize: the three tools on a decoder-CTA group_gemm case; report: the default report.
#   scripts/dev/p216_session.sh OUT [ab] [verify] [tests] [sanitize] [report]   (.carry/new with gpu_tests, .carry/base)
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    ab)
      for c in "group_gemm 192x3072x4096,320x3072x4096" "gemm 128x7168x2048" "gemm 128x7168x16384"; do
        set -- $c
        echo "== $1 $2"
        python3 scripts/dev/ab.py --rounds "${ROUNDS:-3}" --out "$OUT/ab_$1_${2%%,*}" --build "base=$BASE" --build "new=$NEW" \
          -- --problem "$1" --shape "$2" --variant persistent --timer cupti --no-floor --max-time 0.4 2>&1 | tail -n 2
      done ;;
    verify) verify_token_paths verify_gemms "$NEW" "$OUT" ;;
    tests) gpu_tests_run "$OUT" "Variants.GroupGemm:Variants.Gemm:Variants.StreamTokensRelaunch:Variants.TokenModes" 200 ;;
    sanitize) sanitize_run "$NEW" "$OUT" group_gemm 100x512x1024,200x512x1024 NVFP4_PERSISTENT_TOKENS=stream ;;
    report) default_report "$NEW" "$OUT" default ;;
  esac
}
run_steps "ab verify tests sanitize report"
