#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P180 probe (docs/perf-notes.md): which memory path P179's emulated 64-row CTA saturates: Nsight
# Compute's speed-of-light breakdown (L2, shared-memory banks, L1) of main's trace build and the
# NVFP4_PROBE_HALVES trace build on gemm 128x7168x16384 (.carry/trace, .carry/halves).
#   scripts/dev/p180_probe.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
for b in trace halves; do
  NVFP4_PERSISTENT_LOCAL_GROUPS=0 timeout 150 ncu --clock-control none --cache-control all -k regex:wgmma_gemm \
    --launch-count 1 --section SpeedOfLight --print-details all --print-units base \
    .carry/$b/nvfp4bench --problem gemm --shape 128x7168x16384 --variant persistent --verify-only --quiet \
    >"$OUT/sol_$b.txt" 2>&1
  echo "== $b (ncu exit $?)"
  grep -E "Duration|Throughput|l1tex__|lts__|dram__|sm__|Breakdown" "$OUT/sol_$b.txt" | sed -E 's/ +/ /g' | cut -c1-120
done
