#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P186 (docs/perf-notes.md): the decoder CTAs' items dealt across CTAs, the first round stored in item order
# (branch p186-ordered-stream). .carry/base = main's build, .carry/new = the branch's (nvfp4bench,
# gpu_tests), .carry/trace = the branch's trace build with P185's stamps and the decoders' (p186_trace.patch).
#   scripts/dev/p186_session.sh OUT [verify|tests|trace|ab ...]
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
p186() {  # trace_run, summarised by p183_summary.py
  trace_run "$OUT" "$@" 2>/dev/null | head -n 1
  python3 scripts/dev/p183_summary.py "$OUT/$1.trace" | grep -E 'main CTAs|decoder|unit next_work|stream wait|item 0 (decoded|counted)|warp 11|copy step (4|8|12|16) |step (4|8|16) full|local stored|first loop end'
}
step() {
  case $1 in
    verify)
      verify_gemms "$NEW" "$OUT" default decoded
      for lg in 0 1 2; do
        verify_gemms "$NEW" "$OUT" stream-lg$lg decoded NVFP4_PERSISTENT_TOKENS=stream NVFP4_PERSISTENT_LOCAL_GROUPS=$lg
      done ;;
    tests) gpu_tests_run "$OUT" 'Variants.StreamTokensRelaunch:Variants.TokenModes:Variants.GroupGemm:Variants.Gemm' 400 ;;
    trace)
      for lg in 2 1; do p186 g2a-lg$lg group_gemm 192x3072x4096,320x3072x4096 NVFP4_PERSISTENT_LOCAL_GROUPS=$lg; done
      for lg in 1 0; do p186 g2048-lg$lg gemm 128x7168x2048 NVFP4_PERSISTENT_LOCAL_GROUPS=$lg; done ;;
    ab)
      ROUNDS=3 MAXT=0.5 ab_problems "$OUT" ab "group_gemm gemm" base=$BASE new=$NEW \
        new-lg1=$NEW:NVFP4_PERSISTENT_LOCAL_GROUPS=1 new-lg0=$NEW:NVFP4_PERSISTENT_LOCAL_GROUPS=0 \
        base-lg1=$BASE:NVFP4_PERSISTENT_LOCAL_GROUPS=1 ;;
  esac
}
run_steps "verify tests trace ab"
