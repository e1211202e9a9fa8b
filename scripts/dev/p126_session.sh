#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine session of docs/perf-notes.md P126 (fused plans: the weights' copies beyond the first
# N held until the CTA's share of the decode is counted), over builds carried in .carry/base (main
# before it) and .carry/new:   scripts/dev/p126_session.sh OUT [steps...]
#   steps: verify ab (the probe knob), then for the merged default: tests sanitize ab2 report
set -uo pipefail
OUT=$1
shift
steps=${*:-"verify ab"}
. "$(dirname "$0")/gpu_env.sh"
NEW=.carry/new/nvfp4bench BASE=.carry/base/nvfp4bench
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
for step in $steps; do
  echo "==== $step"
  case $step in
    verify)  # the gemm and group_gemm configs with the weights held (fused plans among them)
      for n in 1 2 4; do
        for cfg in configs/gpumode/gemm.json configs/gpumode/group_gemm.json configs/gemm_edges.json configs/smoke.json; do
          json="$OUT/verify_w${n}_$(basename "$cfg")"
          NVFP4_PERSISTENT_WEIGHTS_AHEAD=$n timeout 300 $NEW --config "$cfg" --variant persistent --verify-only --quiet \
            --json "$json" >>"$OUT/verify.log" 2>&1
          echo "w$n $cfg exit $? $(python3 -c "
import json,sys,collections
r=[x for x in json.load(open(sys.argv[1]))['results'] if x['problem'] in ('gemm','group_gemm')]
print(dict(collections.Counter(x['status'] for x in r)), sum('decoded in the main launch' in (x.get('plan') or '') for x in r), 'fused plans')
" "$json")"
        done
      done ;;
    ab)
      for prob in gemm group_gemm; do
        python3 scripts/dev/ab.py --rounds ${ROUNDS:-3} --out "$OUT/ab_$prob" --build base=$BASE --build new=$NEW \
          --build new-w1=$NEW:NVFP4_PERSISTENT_WEIGHTS_AHEAD=1 --build new-w2=$NEW:NVFP4_PERSISTENT_WEIGHTS_AHEAD=2 \
          --build new-w4=$NEW:NVFP4_PERSISTENT_WEIGHTS_AHEAD=4 \
          -- --config configs/gpumode/$prob.json --role benchmark --variant persistent --timer cupti --no-floor \
          --max-time ${MAXT:-1} | tee "$OUT/ab_$prob.txt"
      done ;;
    tests)
      timeout 400 .carry/new/gpu_tests --gtest_filter='Variants.Gemm:Variants.GroupGemm:Variants.FusedTokensRelaunch:Variants.GlobalSplitRelaunch:Variants.StreamTokensRelaunch:Variants.PersistentRejectsBadKnobs:Variants.TokenModes' \
        >"$OUT/gpu_tests.log" 2>&1
      echo "gpu_tests exit $?"; grep -E "^\[  (PASSED|FAILED) |^\[       OK|FAILED TEST|Failure" "$OUT/gpu_tests.log" | head -n 20 ;;
    sanitize)  # fused plans of gemm (through L2 too) and group_gemm, weights held by default
      for tool in memcheck racecheck; do
        for c in "gemm 128x1024x2048" "gemm 128x2048x2048" "group_gemm 40x512x512,200x768x1024,1x256x256"; do
          set -- $c
          NVFP4_PERSISTENT_TOKENS=fused timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $NEW --problem $1 \
            --shape $2 --variant persistent --verify-only --quiet --json "$OUT/san.json" >"$OUT/$tool-$1.txt" 2>&1
          echo "$tool $c exit $? $(grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|Internal" "$OUT/$tool-$1.txt" | tail -n 1) $(python3 -c "
import json,sys; print([(x['status'], x['plan'][-40:]) for x in json.load(open(sys.argv[1]))['results']])" "$OUT/san.json")"
        done
      done ;;
    ab2)
      for prob in gemm group_gemm; do
        python3 scripts/dev/ab.py --rounds ${ROUNDS:-3} --out "$OUT/ab2_$prob" --build base=$BASE --build new=$NEW \
          --build new-w0=$NEW:NVFP4_PERSISTENT_WEIGHTS_AHEAD=0 \
          -- --config configs/gpumode/$prob.json --role benchmark --variant persistent --timer cupti --no-floor \
          --max-time ${MAXT:-1} | tee "$OUT/ab2_$prob.txt"
      done ;;
    report)
      $NEW --config configs/default.json --samples --json $OUT/default.json --csv $OUT/default.csv --markdown $OUT/default.md \
        --quiet >$OUT/default.log 2>&1
      echo "default exit $?"; tail -n 1 $OUT/default.log ;;
  esac
done
