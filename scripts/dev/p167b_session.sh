#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P167b (docs/perf-notes.md): the producers' share warps first (-DNVFP4_P167_PRODUCERS_FIRST=1, .carry/newb
# and its trace build .carry/trace) against P167 (.carry/new) and main's dc683dd (.carry/base), G=2 [128,384].
#   scripts/dev/p167b_session.sh OUT [ab|verify|trace ...]
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    ab)
      python3 scripts/dev/ab.py --rounds 4 --out "$OUT/ab" --build base=$BASE --build new=$NEW --build newb=.carry/newb/nvfp4bench \
        -- --problem group_gemm --shape 128x4096x1536,384x4096x1536 --variant persistent --timer cupti --no-floor \
        --max-time 1 | tee "$OUT/ab.txt" ;;
    verify) verify_groups .carry/newb/nvfp4bench "$OUT" fused "decoded in the main launch" NVFP4_PERSISTENT_TOKENS=fused ;;
    trace)
      trace_spread "$OUT" g2b group_gemm 128x4096x1536,384x4096x1536 ;;
  esac
}
run_steps "ab verify trace"
