#!/usr/bin/env bash
# GPU-machine session for the GEMM-family variants (gemm, dual_gemm, group_gemm) (run over a carried build):
#   scripts/dev/gemm_session.sh BIN_DIR OUT_DIR [steps...]
# BIN_DIR holds nvfp4bench and gpu_tests. steps (default all): tests bench memcheck
#   tests     GPU tests of gemm, dual_gemm and group_gemm (gpu-mode test shapes, smoke, configs/gemm_edges.json)
#   bench     the benchmark shapes of $PROBLEMS (default all three) with --timer cupti, cold L2
#   memcheck  compute-sanitizer memcheck and racecheck of $MC_VARIANTS on the smoke shapes of $MC_PROBLEMS
set -uo pipefail
B=$1 OUT=$2
shift 2
steps=${*:-"tests bench memcheck"}
VARIANTS=${VARIANTS:-naive,vectorized,tensor-core,persistent,cublaslt}
MC_VARIANTS=${MC_VARIANTS:-vectorized,tensor-core,persistent}
. "$(dirname "$0")/gpu_env.sh"
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv | tee "$OUT/gpu.txt"
for step in $steps; do
  echo "==== $step"
  case $step in
    tests)
      timeout 500 "$B/gpu_tests" --gtest_filter="${GTEST_FILTER:-Variants.Gemm:Variants.DualGemm:Variants.GroupGemm}" >"$OUT/gpu_tests.log" 2>&1
      echo "gpu_tests exit $?"
      grep -E "^\[  (PASSED|FAILED) |FAILED TEST|tests from .* ran|Failure|mismatches" "$OUT/gpu_tests.log" | head -n 30 ;;
    bench)
      for p in ${PROBLEMS:-gemm dual_gemm group_gemm}; do
        "$B/nvfp4bench" --config configs/gpumode/$p.json --role benchmark --variant "$VARIANTS" --timer cupti \
          --json "$OUT/bench_$p.json" --markdown "$OUT/bench_$p.md" >"$OUT/bench_$p.txt" 2>"$OUT/bench_$p.err"
        echo "$p exit $?"; cut -c1-200 "$OUT/bench_$p.txt"
      done ;;
    memcheck)
      for p in ${MC_PROBLEMS:-gemm dual_gemm group_gemm}; do
        for tool in memcheck racecheck; do
          compute-sanitizer --tool $tool --error-exitcode 9 "$B/nvfp4bench" --config configs/smoke.json --problem $p \
            --variant "$MC_VARIANTS" --verify-only >"$OUT/${tool}_$p.txt" 2>&1
          echo "$tool $p exit $?"; grep -E "ERROR SUMMARY|PASS|FAIL" "$OUT/${tool}_$p.txt" | tail -n 3
        done
      done ;;
  esac
done
