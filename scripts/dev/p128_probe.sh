#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine probe P128 (docs/perf-notes.md): does the size of the kernels' TokenFuse parameter move
# the short cases? Builds carried in .carry/{new (main), pad40, pad1024} (TokenFuse padded by that
# many bytes), alternated; then main's default report.   scripts/dev/p128_probe.sh OUT [steps...]
set -uo pipefail
OUT=$1
shift
steps=${*:-"ab report"}
. "$(dirname "$0")/gpu_env.sh"
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
for step in $steps; do
  echo "==== $step"
  case $step in
    ab)
      python3 scripts/dev/ab.py --rounds ${ROUNDS:-3} --out "$OUT/ab" --build main=.carry/new/nvfp4bench \
        --build pad40=.carry/pad40/nvfp4bench --build pad1024=.carry/pad1024/nvfp4bench \
        -- --problem group_gemm --shape 192x3072x4096,320x3072x4096 --shape 128x4096x1536,384x4096x1536 \
        --shape 40x7168x2048,76x7168x2048,168x7168x2048,72x7168x2048,164x7168x2048,148x7168x2048,196x7168x2048,160x7168x2048 \
        --variant persistent --timer cupti --no-floor --max-time ${MAXT:-1} | tee "$OUT/ab_group.txt"
      python3 scripts/dev/ab.py --rounds ${ROUNDS:-3} --out "$OUT/ab_gemm" --build main=.carry/new/nvfp4bench \
        --build pad40=.carry/pad40/nvfp4bench --build pad1024=.carry/pad1024/nvfp4bench \
        -- --problem gemm --shape 128x4096x7168 --shape 128x7168x2048 \
        --variant persistent,tensor-core --timer cupti --no-floor --max-time ${MAXT:-1} | tee "$OUT/ab_gemm.txt" ;;
    report)
      .carry/new/nvfp4bench --config configs/default.json --samples --json $OUT/default.json --csv $OUT/default.csv \
        --markdown $OUT/default.md --quiet >$OUT/default.log 2>&1
      echo "default exit $?"; tail -n 1 $OUT/default.log ;;
  esac
done
