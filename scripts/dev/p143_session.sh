#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine session P143 (docs/perf-notes.md): the sanitizers on a data-parallel unsplit 2 x 256
# group plan with several units per CTA (P140's path), and the pre-pass launch of G=8 N=7168 without
# and with its L2 prefetch of the units' first K step (NVFP4_TOKEN_PREFETCH_MB), timed (ab.py) and
# under Nsight Compute, over .carry/new:   scripts/dev/p143_session.sh OUT
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
session_args "$1"
SHAPE=40x2048x1024,76x2048x1024,168x2048x1024,200x2048x1024,256x1024x2048
sanitize_run $NEW "$OUT" group_gemm $SHAPE NVFP4_PERSISTENT_CTA=2x256 NVFP4_PERSISTENT_SCHED=data NVFP4_PERSISTENT_SPLITS=1
G8B=40x7168x2048,76x7168x2048,168x7168x2048,72x7168x2048,164x7168x2048,148x7168x2048,196x7168x2048,160x7168x2048
for mb in 0 1 4; do
  NVFP4_TOKEN_PREFETCH_MB=$mb timeout 200 ncu --clock-control none --cache-control all -k regex:"decode_tokens|wgmma_gemm" \
    --launch-count 2 --metrics gpu__time_duration.sum,dram__bytes_read.sum $NEW --problem group_gemm --shape $G8B \
    --variant persistent --verify-only --quiet >"$OUT/ncu_mb$mb.txt" 2>&1
  echo "== prefetch $mb MB: $(grep -E "gpu__time_duration|dram__bytes_read" "$OUT/ncu_mb$mb.txt" | awk '{print $1, $(NF-1), $NF}' | tr '\n' ' ')"
done
python3 scripts/dev/ab.py --rounds 3 --out "$OUT/ab" --build mb1=$NEW --build mb0=$NEW:NVFP4_TOKEN_PREFETCH_MB=0 \
  --build mb4=$NEW:NVFP4_TOKEN_PREFETCH_MB=4 -- --problem group_gemm --shape $G8B --variant persistent --timer cupti \
  --no-floor --max-time 1
