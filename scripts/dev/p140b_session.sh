#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine session of docs/perf-notes.md P140 as merged (the 2 x 256 group kernels' last tile
# through its held stage), over .carry/base (main before it) and .carry/new (gpu_tests beside it):
#   scripts/dev/p140b_session.sh OUT [steps...]      steps: verify tests sanitize ab
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
for step in ${STEPS:-verify tests sanitize ab}; do
  echo "==== $step"
  case $step in
    verify) verify_configs $NEW "$OUT" new "256 tokens" group_gemm \
      "configs/gpumode/group_gemm.json configs/smoke.json configs/gemm_edges.json"
      verify_configs $NEW "$OUT" wide "256 tokens" group_gemm "configs/gpumode/group_gemm.json configs/gemm_edges.json" \
        NVFP4_PERSISTENT_CTA=2x256 ;;
    tests) gpu_tests_run "$OUT" 'Variants.GroupGemm:Variants.Persistent*:Variants.CutUnitsRelaunch:Variants.WideFusedTokensRelaunch:Variants.StreamTokensRelaunch:Variants.TokenModes' 500 ;;
    sanitize)
      for tool in memcheck racecheck synccheck; do
        NVFP4_PERSISTENT_CTA=2x256 timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $NEW --problem group_gemm \
          --shape 40x1024x512,76x1024x512,168x1024x512,200x1024x512,256x512x1024 --variant persistent --verify-only \
          --quiet --json "$OUT/san.json" >"$OUT/$tool.txt" 2>&1
        echo "$tool exit $? $(grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|Internal" "$OUT/$tool.txt" | tail -n 1) $(python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))['results']; print([x['status'] for x in r], r[0].get('plan','')[:90])" "$OUT/san.json")"
      done ;;
    ab) ab_problems "$OUT" ab group_gemm base=$BASE new=$NEW ;;
  esac
done
