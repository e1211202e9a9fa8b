#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P236c probe (docs/perf-notes.md): main's report build (.carry/new) on gemm 128x7168 at K = 256 and
# 2048, `persistent` and `cublaslt`, under Nsight Compute with its own flush of every cache
# (--cache-control all) and with none (--cache-control none, nvfp4bench's own L2 read flush before
# each sample, --l2 cold): is the persistent kernel's +2.3 us under ncu (P236b) the flush of the
# caches nvfp4bench's L2 flush leaves warm?
#   scripts/dev/p236c_probe.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
for k in 256 2048; do
  for cc in all none; do
    timeout 150 ncu --clock-control none --cache-control $cc --metrics gpu__time_duration.sum -c 60 \
      .carry/new/nvfp4bench --problem gemm --shape 128x7168x$k --variant persistent,cublaslt --timer events --no-floor \
      --l2 cold --max-time 0.05 --quiet >"$OUT/ncu_${cc}_k$k.txt" 2>&1
    echo "K=$k ncu --cache-control $cc (first 60 kernels; the two GEMM kernels):"
    python3 scripts/dev/ncu_times.py kernels "$OUT/ncu_${cc}_k$k.txt" "wgmma_gemm|nvjet_sm90_hsh"
  done
  .carry/new/nvfp4bench --problem gemm --shape 128x7168x$k --variant persistent,cublaslt --timer cupti --no-floor \
    --max-time 0.4 --quiet --json "$OUT/k.json" >/dev/null 2>&1
  case_medians "$OUT/k.json" "  cupti K $k"
done
