#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P227b probe (docs/perf-notes.md): gemm's 2-rank clustered exchange taken away in timed launches
# (the first launch verifies). .carry/base: main's report build; .carry/free: gemm's TU built with
# -DNVFP4_PROBE_FREE_FUSED=1 (scripts/dev/p227_free_fused.patch), at NVFP4_PROBE_FREE = 0 and 4.
#   scripts/dev/p227b_probe.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
F=.carry/free/nvfp4bench
ab_cases "$OUT" "main=$BASE f0=$F:NVFP4_PROBE_FREE=0 f4=$F:NVFP4_PROBE_FREE=4" \
  "gemm 128x7168x2048" "gemm 128x7168x16384" "gemm 128x4096x7168"
