#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P165 (docs/perf-notes.md): the fused share's warps dealt to the CTAs in turn. main's build in
# .carry/base, the branch's in .carry/new (nvfp4bench, gpu_tests), its trace build in .carry/trace.
#   scripts/dev/p165_session.sh OUT [ab|verify|tests|trace ...]
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    ab)
      ab_problems "$OUT" ab "gemm group_gemm" base=$BASE new=$NEW
      python3 scripts/dev/ab.py --rounds 3 --out "$OUT/ab_tc" --build base=$BASE --build new=$NEW -- \
        --config configs/gpumode/gemm.json --role benchmark --variant tensor-core --timer cupti --no-floor \
        --max-time 1 | tee "$OUT/ab_tc.txt" ;;
    verify)
      verify_gemms "$NEW" "$OUT" default "decoded in the main launch"
      verify_gemms "$NEW" "$OUT" fused "decoded in the main launch" NVFP4_PERSISTENT_TOKENS=fused
      for cfg in configs/gpumode/gemm.json configs/gemm_edges.json configs/smoke.json; do
        NVFP4_TENSOR_CORE_TOKENS=fused timeout 300 "$NEW" --config "$cfg" --problem gemm --variant tensor-core \
          --verify-only --quiet --json "$OUT/vtc.json" >>"$OUT/verify.log" 2>&1
        echo "tensor-core fused $cfg exit $? $(python3 -c "
import json,sys,collections
r=json.load(open(sys.argv[1]))['results']
print(dict(collections.Counter(x['status'] for x in r)), sum('main launch' in (x.get('plan') or '') for x in r), 'fused')" "$OUT/vtc.json")"
      done ;;
    tests) gpu_tests_run "$OUT" 'Variants.Gemm:Variants.GroupGemm:Variants.DualGemm:Variants.FusedTokensRelaunch:Variants.TensorCorePairsRelaunch:Variants.GlobalSplitRelaunch:Variants.TokenModes' 420 ;;
    trace)
      TRACE_LINES=12 trace_spread "$OUT" g2b group_gemm 128x4096x1536,384x4096x1536
      TRACE_LINES=12 trace_spread "$OUT" gemm4096 gemm 128x4096x7168 ;;
  esac
}
run_steps "ab verify tests trace"
