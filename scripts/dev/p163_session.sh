#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P163 (docs/perf-notes.md) and main's check: main's build in .carry/base (nvfp4bench, gpu_tests),
# branch p163-pairs-two-phase's in .carry/new.
#   scripts/dev/p163_session.sh OUT [plans|maintests|verify|ab|tests|sanitize|trace ...]
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
FILTER='Variants.TensorCore*:Variants.Gemm:Variants.DualGemm:Variants.EverySplitCount:Variants.FusedTokensRelaunch'
step() {
  case $1 in
    plans)  # main's plans after 81fb007's host-side pricing change
      for v in tensor-core persistent; do
        for p in gemm dual_gemm group_gemm; do
          "$BASE" --config configs/default.json --problem $p --variant $v --verify-only --quiet --json "$OUT/plans.json" \
            >>"$OUT/plans.log" 2>&1
          echo "$v $p exit $?"
          python3 -c "
import json,sys
for x in json.load(open(sys.argv[1]))['results']: print(' ', x['status'], x.get('shape'), '|', x.get('plan'))" "$OUT/plans.json"
        done
      done ;;
    maintests)
      timeout 400 .carry/base/gpu_tests --gtest_filter="$FILTER" >"$OUT/gpu_tests_main.log" 2>&1
      echo "main gpu_tests exit $?"
      grep -E "^\[  (PASSED|FAILED) |^\[       OK|FAILED TEST|Failure" "$OUT/gpu_tests_main.log" | head -n 20 ;;
    verify|ab|sanitize) bash scripts/dev/p162_session.sh "$OUT/p162" "$1" | grep -v "^==== " ;;
    tests) gpu_tests_run "$OUT" "$FILTER" 420 ;;
    trace)  # main's trace build: the fused plans' per-CTA start (G=2 [128,384], gemm 128x4096x7168)
      TRACE_LINES=30 trace_spread "$OUT" g2b group_gemm 128x4096x1536,384x4096x1536
      TRACE_LINES=30 trace_spread "$OUT" gemm4096 gemm 128x4096x7168 ;;
  esac
}
run_steps "plans maintests verify ab tests sanitize trace"
