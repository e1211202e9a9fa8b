#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P236 probe (docs/perf-notes.md): scripts/dev/start_probe.cu (built in .carry/sp) under Nsight
# Compute and on its own (its %globaltimer stamps), then main's report build (.carry/new) on gemm
# 128x7168 at K = 256, 512, 2048, `persistent` and `cublaslt`, cupti, cold L2; then the same two
# variants at K = 256 and 2048 under Nsight Compute with its own cache flush (--cache-control all), and
# start_probe under the same, so that the three are read on one measure.
#   scripts/dev/p236_probe.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
timeout 60 .carry/sp/start_probe | tee "$OUT/stamps.txt"
timeout 120 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum .carry/sp/start_probe >"$OUT/ncu.txt" 2>&1
python3 scripts/dev/ncu_times.py modes "$OUT/ncu.txt" NCU
for k in 256 512 2048; do
  for r in 1 2; do
    .carry/new/nvfp4bench --problem gemm --shape 128x7168x$k --variant persistent,cublaslt --timer cupti --no-floor \
      --max-time 0.4 --quiet --json "$OUT/k.json" >/dev/null 2>"$OUT/k.err"
    case_medians "$OUT/k.json" "K $k round $r"
  done
done
timeout 120 ncu --clock-control none --cache-control all --metrics gpu__time_duration.sum .carry/sp/start_probe >"$OUT/ncu_all.txt" 2>&1
echo "start_probe under ncu --cache-control all:"
python3 scripts/dev/ncu_times.py modes "$OUT/ncu_all.txt" NCU-ALL
for k in 256 2048; do
  timeout 150 ncu --clock-control none --cache-control all --metrics gpu__time_duration.sum -c 60 \
    .carry/new/nvfp4bench --problem gemm --shape 128x7168x$k --variant persistent,cublaslt --timer events --no-floor \
    --max-time 0.05 --quiet >"$OUT/ncu_k$k.txt" 2>&1
  echo "nvfp4bench K=$k under ncu --cache-control all (first 60 kernels; median per kernel name):"
  python3 scripts/dev/ncu_times.py kernels "$OUT/ncu_k$k.txt"
done
