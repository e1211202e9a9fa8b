#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P165's kept form and P166 (docs/perf-notes.md): main's 81fb007 build in .carry/base, 6afb6f8 + P163
# (19f3e1c) in .carry/new1, 9d0ea2d (P166) in .carry/new (nvfp4bench, gpu_tests), its trace build in .carry/trace.
#   scripts/dev/p166_session.sh OUT [ab|verify|tests|sanitize|trace ...]
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    ab)
      ab_problems "$OUT" ab "group_gemm gemm" base=$BASE new1=.carry/new1/nvfp4bench new=$NEW
      python3 scripts/dev/ab.py --rounds 3 --out "$OUT/ab_tc" --build base=$BASE --build new=$NEW -- \
        --config configs/gpumode/gemm.json --role benchmark --variant tensor-core --timer cupti --no-floor \
        --max-time 1 | tee "$OUT/ab_tc.txt" ;;
    verify)
      verify_gemms "$NEW" "$OUT" default "decoded in the main launch"
      verify_groups "$NEW" "$OUT" fused "decoded in the main launch" NVFP4_PERSISTENT_TOKENS=fused ;;
    tests) gpu_tests_run "$OUT" 'Variants.Gemm:Variants.GroupGemm:Variants.DualGemm:Variants.TokenModes:Variants.FusedTokensRelaunch:Variants.GlobalSplitRelaunch:Variants.TensorCore*' 420 ;;
    sanitize)
      mkdir -p "$OUT/san"
      sanitize_run "$NEW" "$OUT/san" group_gemm 128x1024x1536,384x1024x1536 NVFP4_PERSISTENT_TOKENS=fused
      NVFP4_TENSOR_CORE_WARPS=8k NVFP4_TENSOR_CORE_SPLITS=4 timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 \
        "$NEW" --problem gemm --shape 256x1024x2048x2 --variant tensor-core --verify-only --quiet --json "$OUT/san/tc.json" \
        >"$OUT/san/tc-racecheck.txt" 2>&1
      echo "tensor-core racecheck exit $? $(grep -hE "RACECHECK SUMMARY" "$OUT/san/tc-racecheck.txt" | tail -n 1)"
      grep -hE "in (void )?[A-Za-z_:<]" "$OUT/san/tc-racecheck.txt" | sed 's/^ *//' | cut -c1-160 | sort | uniq -c | head -n 6 ;;
    trace)
      trace_spread "$OUT" g2b group_gemm 128x4096x1536,384x4096x1536 ;;
  esac
}
run_steps "ab verify tests sanitize trace"
