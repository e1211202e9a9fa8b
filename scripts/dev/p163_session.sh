#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P163 (docs/perf-notes.md): the pairs path of `tensor-core` gemm's K-halves CTA with P161c's two-part fold; reduced in pairs through
# clusters of 2 and then through L2. Builds in .carry/{base,new}: verify-only, A/B, GPU tests, sanitizers.
#   scripts/dev/p163_session.sh OUT [verify|ab|tests|sanitize ...]
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    verify)
      for mode in "model" "pairs NVFP4_TENSOR_CORE_WARPS=8k NVFP4_TENSOR_CORE_SPLITS=4" \
        "pairs-prepass NVFP4_TENSOR_CORE_WARPS=8k NVFP4_TENSOR_CORE_SPLITS=4 NVFP4_TENSOR_CORE_TOKENS=prepass"; do
        set -- $mode
        name=$1
        shift
        for cfg in configs/gpumode/gemm.json configs/gemm_edges.json configs/smoke.json; do
          env "$@" timeout 300 "$NEW" --config "$cfg" --problem gemm --variant tensor-core --verify-only --quiet \
            --json "$OUT/v.json" >>"$OUT/verify.log" 2>&1
          echo "$name $cfg exit $? $(python3 -c "
import json,sys,collections
r=json.load(open(sys.argv[1]))['results']
print(dict(collections.Counter(x['status'] for x in r)), sum('pairs' in (x.get('plan') or '') for x in r), 'in pairs')" "$OUT/v.json")"
        done
      done ;;
    ab)
      python3 scripts/dev/ab.py --rounds 3 --out "$OUT/ab" --build base=$BASE --build new=$NEW \
        --build "new-nopairs=$NEW:NVFP4_TENSOR_CORE_PAIRS=0" -- --config configs/gpumode/gemm.json --role benchmark \
        --variant tensor-core --timer cupti --no-floor --max-time 1 | tee "$OUT/ab.txt"
      $NEW --problem gemm --shape 128x4096x7168 --variant tensor-core --verify-only --quiet --json "$OUT/p.json" >/dev/null 2>&1
      python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['results'][0]['plan'])" "$OUT/p.json" ;;
    tests) gpu_tests_run "$OUT" 'Variants.TensorCore*:Variants.Gemm:Variants.FusedTokensRelaunch' 420 ;;
    sanitize)
      for tool in memcheck synccheck racecheck; do
        NVFP4_TENSOR_CORE_WARPS=8k NVFP4_TENSOR_CORE_SPLITS=4 timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 \
          "$NEW" --problem gemm --shape 256x1024x2048x2 --variant tensor-core --verify-only --quiet --json "$OUT/san.json" \
          >"$OUT/$tool.txt" 2>&1
        echo "$tool exit $? $(grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/$tool.txt" | tail -n 1)"
      done ;;
  esac
}
run_steps "verify ab tests sanitize"
