#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine session of docs/perf-notes.md P123 (group_gemm's 2 x 256 kernel decoding its tokens
# itself), over builds carried in .carry/base (main before it) and .carry/new:
#   scripts/dev/p123_session.sh OUT [steps...]   steps (default all): verify tests sanitize ab
set -uo pipefail
. "$(dirname "$0")/group_verify.sh"
session_args "$@"
summary() { grep -E "PASS,|FAIL|ERROR|SKIP" "$1" | tail -n 1; }
for step in ${STEPS:-verify tests sanitize ab}; do
  echo "==== $step"
  case $step in
    verify)  # every group_gemm case of the configs, as planned and with the wide fused kernel forced
      group_verify $NEW "$OUT" "counted first" default
      group_verify $NEW "$OUT" "counted first" wide NVFP4_PERSISTENT_TOKENS=fused NVFP4_PERSISTENT_CTA=2x256 \
        NVFP4_PERSISTENT_SCHED=data ;;
    tests)
      timeout 400 .carry/new/gpu_tests --gtest_filter='Variants.GroupGemm:Variants.WideFusedTokensRelaunch:Variants.FusedTokensRelaunch:Variants.TokenModes:Variants.PersistentGroupNarrowAndBalance:Variants.PersistentRejectsBadKnobs' \
        >"$OUT/gpu_tests.log" 2>&1
      echo "gpu_tests exit $?"; grep -E "^\[  (PASSED|FAILED) |^\[       OK|FAILED TEST|Failure" "$OUT/gpu_tests.log" | head -n 20 ;;
    sanitize)  # the wide fused kernel on the smoke group cases
      for tool in memcheck racecheck synccheck; do
        NVFP4_PERSISTENT_TOKENS=fused NVFP4_PERSISTENT_CTA=2x256 NVFP4_PERSISTENT_SCHED=data \
          timeout 300 compute-sanitizer --tool $tool --error-exitcode 9 $NEW --config configs/smoke.json \
          --problem group_gemm --variant persistent --verify-only --quiet >"$OUT/$tool.txt" 2>&1
        echo "$tool exit $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Internal" "$OUT/$tool.txt" | tail -n 2
      done ;;
    ab)  # main against the change, alternated, the group benchmark cases (cupti, cold L2)
      python3 scripts/dev/ab.py --rounds ${ROUNDS:-3} --out "$OUT/ab" --build base=$BASE --build new=$NEW \
        --build new-e0=$NEW:NVFP4_PERSISTENT_EARLY_STEPS=0 -- --config configs/gpumode/group_gemm.json \
        --role benchmark --variant persistent --timer cupti --no-floor --max-time ${MAXT:-2} | tee "$OUT/ab.txt" ;;
  esac
done
