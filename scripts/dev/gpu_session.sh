#!/usr/bin/env bash
# The GPU-machine session that produces the committed reports (run over a carried build):
#   scripts/dev/gpu_session.sh BUILD_DIR WORK_DIR [steps...]   (then tar WORK_DIR into $OUT: the
#   device tool brings back at most 8 files)
# steps (default all): tests default twice fidelity gemv extras timers
set -uo pipefail
B=$1 OUT=$2
shift 2
steps=${*:-"tests default twice fidelity gemv extras timers"}
. "$(dirname "$0")/gpu_env.sh"
bin=$B/nvfp4bench
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv | tee "$OUT/gpu.txt"
for step in $steps; do
  echo "==== $step"
  case $step in
    tests)  # every GPU test; the log is kept
      timeout 400 "$B/tests/gpu_tests" >"$OUT/gpu_tests.log" 2>&1; echo "gpu_tests exit $?"
      grep -E "^\[  (PASSED|FAILED) |FAILED TEST|tests from .* ran" "$OUT/gpu_tests.log" ;;
    default)  # the main job's report (configs/default.json, events timer, cold L2)
      "$bin" --config configs/default.json --samples --json "$OUT/default.json" --csv "$OUT/default.csv" \
        --markdown "$OUT/default.md" >"$OUT/default.txt" 2>"$OUT/default.err"; echo "default exit $?"
      cut -c1-180 "$OUT/default.txt" ;;
    twice)  # consecutive run + compare (fidelity item: SAME on >= 95% of cases)
      "$bin" --config configs/default.json --json "$OUT/default2.json" >/dev/null 2>&1; echo "second run exit $?"
      "$bin" compare "$OUT/default.json" "$OUT/default2.json" --markdown "$OUT/compare.md" >"$OUT/compare.txt"
      echo "compare exit $?"; tail -n 3 "$OUT/compare.txt" ;;
    fidelity)  # cupti timer vs Nsight Compute, gemv and gemm benchmark shapes
      python3 scripts/fidelity.py "$OUT/fid" --bin "$bin" 2>&1 | grep -v "^nvfp4bench\|^\[" | tail -n 20
      python3 scripts/fidelity.py "$OUT/fid" --bin "$bin" --l2 warm --ncu-cache none 2>&1 | tail -n 1 ;;
    gemv)  # the gemv benchmark shapes with the cupti timer too
      "$bin" --config configs/gpumode/gemv.json --role benchmark --timer cupti --json "$OUT/gemv_cupti.json" \
        --markdown "$OUT/gemv_cupti.md" 2>/dev/null | cut -c1-180 ;;
    extras)  # calibrate, --sol measured, the memory-limit error, ncu.sh
      "$bin" calibrate --json "$OUT/calibrate.json"
      "$bin" --problem gemv --shape 4096x7168x8 --variant vectorized --sol measured --json "$OUT/sol_measured.json" \
        2>/dev/null | tail -n 2
      "$bin" --problem gemm --shape 262144x262144x262144 --verify-only; echo "too-big exit $? (expect 2)"
      NVFP4BENCH=$bin scripts/ncu.sh --problem gemv --shape 7168x2048x4 --variant vectorized -o "$OUT/ncu_gemv" \
        >"$OUT/ncu.txt" 2>&1; echo "ncu.sh exit $?"; grep -E "Duration|DRAM Throughput|Memory Throughput" "$OUT/ncu.txt" | head -n 4 ;;
    timers)  # the timers on a spin kernel, and --batch / --timer graph|cupti end to end
      "$B/tests/gpu_tests" --gtest_filter='Timers.*' 2>&1 | grep -E "^spin|PASSED|FAILED"
      for t in events cupti graph; do
        "$bin" --problem gemm --shape 128x4096x7168 --variant cublaslt --timer $t --batch 8 --no-floor \
          --json "$OUT/batch_$t.json" 2>/dev/null | grep -E "cublaslt|PASS"
        "$bin" --problem group_gemm --shape 40x4096x7168,200x4096x7168 --variant naive,cublaslt --timer $t --batch 4 \
          --max-time 0.5 --json "$OUT/batch_group_$t.json" 2>/dev/null | grep -E "group_gemm"
      done ;;
  esac
done
