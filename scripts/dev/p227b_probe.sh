#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P227b probe (docs/perf-notes.md): gemm's 2-rank clustered exchange taken away in timed launches
# (the first launch verifies). .carry/base: main's report build; .carry/free: gemm's TU built with
# -DNVFP4_PROBE_FREE_FUSED=1 (scripts/dev/p227_free_fused.patch), at NVFP4_PROBE_FREE = 0 and 4.
#   scripts/dev/p227b_probe.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
F=.carry/free/nvfp4bench
for c in 128x7168x2048 128x7168x16384 128x4096x7168; do
  python3 scripts/dev/ab.py --rounds "${ROUNDS:-5}" --out "$OUT/ab-$c" --build main=$BASE \
    --build f0=$F:NVFP4_PROBE_FREE=0 --build f4=$F:NVFP4_PROBE_FREE=4 \
    -- --problem gemm --shape $c --variant persistent --timer cupti --no-floor --max-time 0.4 | tail -n 1
done
