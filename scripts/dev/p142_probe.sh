#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine probe P142 (docs/perf-notes.md): the sanitizers on an unsplit 2 x 256 group plan (P140's
# path), and Nsight Compute's per-kernel durations of `persistent` on the group_gemm benchmark cases
# (pre-pass launch against main launch), over .carry/new:   scripts/dev/p142_probe.sh OUT
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
session_args "$1"
SHAPE=40x2048x1024,76x2048x1024,168x2048x1024,200x2048x1024,256x1024x2048
sanitize_run $NEW "$OUT" group_gemm $SHAPE NVFP4_PERSISTENT_CTA=2x256 NVFP4_PERSISTENT_SPLITS=1
for c in "g8a 80x4096x7168,176x4096x7168,128x4096x7168,72x4096x7168,64x4096x7168,248x4096x7168,96x4096x7168,160x4096x7168" \
         "g8b 40x7168x2048,76x7168x2048,168x7168x2048,72x7168x2048,164x7168x2048,148x7168x2048,196x7168x2048,160x7168x2048" \
         "g2a 192x3072x4096,320x3072x4096" "g2b 128x4096x1536,384x4096x1536"; do
  set -- $c
  timeout 200 ncu --clock-control none --cache-control all -k regex:"decode_tokens|wgmma_gemm" --launch-count 6 \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size \
    $NEW --problem group_gemm --shape "$2" --variant persistent --verify-only --quiet >"$OUT/ncu_$1.txt" 2>&1
  echo "== $1 ncu exit $?"
  grep -E "decode_tokens|wgmma_gemm|gpu__time_duration|dram__bytes|launch__grid" "$OUT/ncu_$1.txt" | sed -E 's/\(int, int, int\)//; s/ +/ /g' | cut -c1-110
done
