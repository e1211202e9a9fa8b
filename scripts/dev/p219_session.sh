#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P219 (docs/perf-notes.md): group_gemm's 128-token tiles of balanced heights on n96 / n112 wgmmas
# (NVFP4_PERSISTENT_NARROW=112, the new build's default). ab: main's build, the new one at 96 and at its default 112
# on the G=2 cases; verify: group_gemm's configs at 112 by default and with the tokens forced to
# decoder CTAs; tests / sanitize at 112.
#   scripts/dev/p219_session.sh OUT [ab] [verify] [tests] [sanitize] [report]   (.carry/new with gpu_tests, .carry/base: main's build)
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
N=NVFP4_PERSISTENT_NARROW
step() {
  case $1 in
    ab)
      ab_cases "$OUT" "main=$BASE n96=$NEW:$N=96 n112=$NEW" "group_gemm 192x3072x4096,320x3072x4096" \
        "group_gemm 128x4096x1536,384x4096x1536"
      env "$N=96" "$NEW" --problem group_gemm --shape 192x3072x4096,320x3072x4096 --variant persistent --verify-only --quiet \
        --json "$OUT/plan.json" >/dev/null 2>&1
      "$NEW" --problem group_gemm --shape 192x3072x4096,320x3072x4096 --variant persistent --verify-only \
        --quiet --json "$OUT/plan112.json" >/dev/null 2>&1
      python3 -c "
import json,sys
for f in sys.argv[1:]: r=json.load(open(f))['results'][0]; print(f.split('/')[-1], r['status'], r.get('plan'))" "$OUT/plan.json" "$OUT/plan112.json" ;;
    verify)
      verify_groups "$NEW" "$OUT" n112 "narrower" "$N=112"
      for lg in 0 1; do
        verify_groups "$NEW" "$OUT" "stream-lg$lg-n112" "narrower" NVFP4_PERSISTENT_TOKENS=stream \
          NVFP4_PERSISTENT_LOCAL_GROUPS=$lg "$N=112"
      done
      verify_groups "$NEW" "$OUT" "fused-n112" "narrower" NVFP4_PERSISTENT_TOKENS=fused "$N=112"
      verify_groups "$NEW" "$OUT" "prepass-n112" "narrower" NVFP4_PERSISTENT_TOKENS=prepass "$N=112" ;;
    tests) gpu_tests_run "$OUT" "Variants.GroupGemm:Variants.StreamTokensRelaunch:Variants.TokenModes" 200 ;;
    sanitize)
      sanitize_run "$NEW" "$OUT" group_gemm 100x2048x1024,200x2048x1024 NVFP4_PERSISTENT_TOKENS=stream "$N=112"
      sanitize_run "$NEW" "$OUT" group_gemm 40x1024x512,200x512x1024,330x1024x768 "$N=112" ;;
    report) default_report "$NEW" "$OUT" default ;;
  esac
}
run_steps "ab verify tests sanitize"
