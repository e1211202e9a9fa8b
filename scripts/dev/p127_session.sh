#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine session of docs/perf-notes.md P127 (the 2 x 128 fused share in two phases), over builds
# carried in .carry/base (P126) and .carry/new:   scripts/dev/p127_session.sh OUT [steps...]
#   steps (default verify tests ab): verify (FUSE_EARLY 1, 2, 4 forced), tests, ab, sanitize
set -uo pipefail
OUT=$1
shift
steps=${*:-"verify tests ab"}
. "$(dirname "$0")/gpu_env.sh"
NEW=.carry/new/nvfp4bench BASE=.carry/base/nvfp4bench
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
for step in $steps; do
  echo "==== $step"
  case $step in
    verify)
      for n in 1 2 4; do
        for cfg in configs/gpumode/gemm.json configs/gpumode/group_gemm.json configs/gemm_edges.json configs/smoke.json; do
          json="$OUT/verify_e${n}_$(basename "$cfg")"
          NVFP4_PERSISTENT_FUSE_EARLY=$n timeout 300 $NEW --config "$cfg" --variant persistent --verify-only --quiet \
            --json "$json" >>"$OUT/verify.log" 2>&1
          echo "e$n $cfg exit $? $(python3 -c "
import json,sys,collections
r=[x for x in json.load(open(sys.argv[1]))['results'] if x['problem'] in ('gemm','group_gemm')]
print(dict(collections.Counter(x['status'] for x in r)), sum('counted first' in (x.get('plan') or '') for x in r), 'phased plans')
" "$json")"
        done
      done ;;
    tests)
      timeout 400 .carry/new/gpu_tests --gtest_filter='Variants.FusedPhasesRelaunch:Variants.FusedTokensRelaunch:Variants.GlobalSplitRelaunch:Variants.PersistentRejectsBadKnobs:Variants.Gemm:Variants.GroupGemm' \
        >"$OUT/gpu_tests.log" 2>&1
      echo "gpu_tests exit $?"; grep -E "^\[  (PASSED|FAILED) |^\[       OK|FAILED TEST|Failure" "$OUT/gpu_tests.log" | head -n 20 ;;
    ab)
      for prob in gemm group_gemm; do
        python3 scripts/dev/ab.py --rounds ${ROUNDS:-3} --out "$OUT/ab_$prob" --build base=$BASE --build new=$NEW \
          --build new-e1=$NEW:NVFP4_PERSISTENT_FUSE_EARLY=1 --build new-e2=$NEW:NVFP4_PERSISTENT_FUSE_EARLY=2 \
          --build new-e4=$NEW:NVFP4_PERSISTENT_FUSE_EARLY=4 \
          -- --config configs/gpumode/$prob.json --role benchmark --variant persistent --timer cupti --no-floor \
          --max-time ${MAXT:-1} | tee "$OUT/ab_$prob.txt"
      done ;;
    sanitize)
      for tool in memcheck racecheck synccheck; do
        for c in "gemm 128x4096x1024" "group_gemm 40x512x512,200x768x1024,1x256x256"; do
          set -- $c
          NVFP4_PERSISTENT_TOKENS=fused NVFP4_PERSISTENT_CTA=2x128 NVFP4_PERSISTENT_FUSE_EARLY=${EARLY:-4} timeout 200 \
            compute-sanitizer --tool $tool --error-exitcode 9 $NEW --problem $1 --shape $2 --variant persistent \
            --verify-only --quiet --json "$OUT/san.json" >"$OUT/$tool-$1.txt" 2>&1
          echo "$tool $c exit $? $(grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|Internal" "$OUT/$tool-$1.txt" | tail -n 1) $(python3 -c "
import json,sys; print([(x['status'], x['plan'][-50:]) for x in json.load(open(sys.argv[1]))['results']])" "$OUT/san.json")"
        done
      done ;;
  esac
done
