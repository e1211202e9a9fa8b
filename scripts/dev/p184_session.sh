#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P184 (docs/perf-notes.md): the decoder CTAs' items dealt across CTAs, the first group stored first
# (branch p184-dealt-stream). .carry/base = main's build, .carry/new = the branch's (nvfp4bench,
# gpu_tests), .carry/trace = the branch's trace build with P183's stamps.
#   scripts/dev/p184_session.sh OUT [verify|tests|trace|ab ...]
# (P186's session runs these steps too: DEC_ROWS sets the trace rows printed, DEC_G2A_LGS the local
# groups G=2 [192,320] is traced at.)
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
p184() {
  TRACE_ROWS=${DEC_ROWS:-'main CTAs|decoder|unit next_work|stream wait|item 0 (decoded|counted)|local stored|first loop end'} \
    trace_table "$OUT" "$@"
}
step() {
  case $1 in
    verify) verify_token_paths verify_gemms "$NEW" "$OUT" ;;
    tests) gpu_tests_run "$OUT" 'Variants.StreamTokensRelaunch:Variants.TokenModes:Variants.GroupGemm:Variants.Gemm' 400 ;;
    trace)
      for lg in ${DEC_G2A_LGS:-2 1 0}; do p184 g2a-lg$lg group_gemm 192x3072x4096,320x3072x4096 NVFP4_PERSISTENT_LOCAL_GROUPS=$lg; done
      for lg in 1 0; do p184 g2048-lg$lg gemm 128x7168x2048 NVFP4_PERSISTENT_LOCAL_GROUPS=$lg; done ;;
    ab)
      ROUNDS=3 MAXT=0.5 ab_problems "$OUT" ab "group_gemm gemm" base=$BASE new=$NEW \
        new-lg1=$NEW:NVFP4_PERSISTENT_LOCAL_GROUPS=1 new-lg0=$NEW:NVFP4_PERSISTENT_LOCAL_GROUPS=0 \
        base-lg1=$BASE:NVFP4_PERSISTENT_LOCAL_GROUPS=1 ;;
  esac
}
run_steps "verify tests trace ab"
