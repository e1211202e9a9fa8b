#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P227 probe (docs/perf-notes.md): gemm 128x4096x7168's fused token share and 4-rank exchange, each
# taken away in timed launches. .carry/base: main's report build; .carry/free: the same with gemm's
# TU built with -DNVFP4_PROBE_FREE_FUSED=1 (scripts/dev/p227_free_fused.patch), run at
# NVFP4_PROBE_FREE = 0, 1 (no share decode), 3 (+ no wait for the counts), 4 (no exchange), 7 (all).
#   scripts/dev/p227_probe.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
F=.carry/free/nvfp4bench
python3 scripts/dev/ab.py --rounds "${ROUNDS:-5}" --out "$OUT/ab" --build main=$BASE \
  --build f0=$F:NVFP4_PROBE_FREE=0 --build f1=$F:NVFP4_PROBE_FREE=1 --build f3=$F:NVFP4_PROBE_FREE=3 \
  --build f4=$F:NVFP4_PROBE_FREE=4 --build f7=$F:NVFP4_PROBE_FREE=7 \
  -- --problem gemm --shape 128x4096x7168 --variant persistent --timer cupti --no-floor --max-time 0.4
