#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine session of docs/perf-notes.md P131 (the fused plans' token warp waits for the count just before its first copy), over
# builds carried in .carry/base (main) and .carry/new:   scripts/dev/p131_session.sh OUT [steps...]
#   steps (default verify tests ab)
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
    verify)  # as planned and with the tokens forced fused (2 x 128)
      for mode in default fused; do
        for cfg in configs/gpumode/gemm.json configs/gpumode/group_gemm.json configs/gemm_edges.json configs/smoke.json; do
          json="$OUT/verify_${mode}_$(basename "$cfg")"
          if [ $mode = fused ]; then E=(NVFP4_PERSISTENT_TOKENS=fused NVFP4_PERSISTENT_CTA=2x128); else E=(); fi
          env "${E[@]}" timeout 300 $NEW --config "$cfg" --variant persistent --verify-only --quiet --json "$json" \
            >>"$OUT/verify.log" 2>&1
          echo "$mode $cfg exit $? $(python3 -c "
import json,sys,collections
r=[x for x in json.load(open(sys.argv[1]))['results'] if x['problem'] in ('gemm','group_gemm')]
print(dict(collections.Counter(x['status'] for x in r)), sum('decoded in the main launch' in (x.get('plan') or '') for x in r), 'fused plans')
" "$json")"
        done
      done ;;
    tests)
      timeout 400 .carry/new/gpu_tests --gtest_filter='Variants.FusedTokensRelaunch:Variants.GlobalSplitRelaunch:Variants.TokenModes:Variants.Gemm:Variants.GroupGemm:Variants.StreamTokensRelaunch:Variants.PersistentEveryIssuerCount:Variants.PersistentGroupRoleLoops:Variants.WideFusedTokensRelaunch' \
        >"$OUT/gpu_tests.log" 2>&1
      echo "gpu_tests exit $?"; grep -E "^\[  (PASSED|FAILED) |^\[       OK|FAILED TEST|Failure" "$OUT/gpu_tests.log" | head -n 20 ;;
    ab)
      for prob in gemm group_gemm; do
        python3 scripts/dev/ab.py --rounds ${ROUNDS:-3} --out "$OUT/ab_$prob" --build base=$BASE --build new=$NEW \
          -- --config configs/gpumode/$prob.json --role benchmark --variant persistent --timer cupti --no-floor \
          --max-time ${MAXT:-1} | tee "$OUT/ab_$prob.txt"
      done ;;
  esac
done
