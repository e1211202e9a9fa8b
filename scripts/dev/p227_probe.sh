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
ab_cases "$OUT" "main=$BASE f0=$F:NVFP4_PROBE_FREE=0 f1=$F:NVFP4_PROBE_FREE=1 f3=$F:NVFP4_PROBE_FREE=3 f4=$F:NVFP4_PROBE_FREE=4 f7=$F:NVFP4_PROBE_FREE=7" \
  "gemm 128x4096x7168"
