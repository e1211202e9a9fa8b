#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine session of docs/perf-notes.md P125 (group_gemm's 2 x 256 units cut in two K ranges),
# over builds carried in .carry/base (main before it) and .carry/new:
#   scripts/dev/p125_session.sh OUT [steps...]   steps (default all): verify tests sanitize ab
set -uo pipefail
. "$(dirname "$0")/group_verify.sh"
session_args "$@"
CUT=(NVFP4_PERSISTENT_PARTS=1 NVFP4_PERSISTENT_CTA=2x256 NVFP4_PERSISTENT_SCHED=data NVFP4_PERSISTENT_SPLITS=1)
CUT_CASE=248x4096x2048,64x4096x1024,176x8192x1536,40x4096x2048,300x2048x2048
for step in ${STEPS:-verify tests sanitize ab}; do
  echo "==== $step"
  case $step in
    verify)  # every group_gemm case of the configs, as planned and with cut units forced
      group_verify $NEW "$OUT" "units cut" default
      group_verify $NEW "$OUT" "units cut" cut "${CUT[@]}"
      env "${CUT[@]}" $NEW --problem group_gemm --shape $CUT_CASE --variant persistent --verify-only --quiet \
        --json "$OUT/verify_cut_case.json" >>"$OUT/verify.log" 2>&1
      echo "cut case exit $? $(python3 -c "
import json,sys
for x in json.load(open(sys.argv[1]))['results']: print(x['status'], x.get('plan'))
" "$OUT/verify_cut_case.json")" ;;
    tests)
      timeout 450 .carry/new/gpu_tests --gtest_filter='Variants.CutUnitsRelaunch:Variants.GroupGemm:Variants.WideFusedTokensRelaunch:Variants.TokenModes:Variants.PersistentGroupNarrowAndBalance:Variants.PersistentRejectsBadKnobs' \
        >"$OUT/gpu_tests.log" 2>&1
      echo "gpu_tests exit $?"; grep -E "^\[  (PASSED|FAILED) |^\[       OK|FAILED TEST|Failure" "$OUT/gpu_tests.log" | head -n 20 ;;
    sanitize)  # the forced cut plan: memcheck, racecheck
      for tool in ${TOOLS:-memcheck racecheck}; do
        env "${CUT[@]}" timeout 400 compute-sanitizer --tool $tool --error-exitcode 9 $NEW --problem group_gemm \
          --shape $CUT_CASE --variant persistent --verify-only --quiet >"$OUT/$tool.txt" 2>&1
        echo "$tool exit $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Internal|PASS|FAIL" "$OUT/$tool.txt" | tail -n 3
      done ;;
    ab)  # main against the change, alternated, the group benchmark cases (cupti, cold L2)
      python3 scripts/dev/ab.py --rounds ${ROUNDS:-3} --out "$OUT/ab" --build base=$BASE --build new=$NEW \
        --build new-parts0=$NEW:NVFP4_PERSISTENT_PARTS=0 --build new-lg2=$NEW:NVFP4_PERSISTENT_LOCAL_GROUPS=2 \
        -- --config configs/gpumode/group_gemm.json --role benchmark --variant persistent --timer cupti --no-floor \
        --max-time ${MAXT:-2} | tee "$OUT/ab.txt"
      grep -h '"plan"' "$OUT"/ab/new_r0.json | sort -u | cut -c1-400 ;;
  esac
done
