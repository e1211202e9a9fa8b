#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P199 (docs/perf-notes.md): branch p198-local-steps with scripts/dev/p199_lazy_first.patch's knobs
# (NVFP4_PERSISTENT_LOCAL_STEPS, NVFP4_PERSISTENT_LAZY_FIRST, NVFP4_PERSISTENT_DEALT). .carry/base = main's
# build, .carry/new = the branch's (nvfp4bench, gpu_tests), .carry/trace = its trace build.
#   scripts/dev/p199_session.sh OUT [tests|verify|ab|trace ...]
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
K=(NVFP4_PERSISTENT_LAZY_FIRST=1 NVFP4_PERSISTENT_DEALT=1)
ROWS='main CTAs|local stored|unit next_work|first loop end|  done|decoder|item 0 counted|warp 0 done'
step() {
  case $1 in
    tests) env "${K[@]}" NVFP4_PERSISTENT_LOCAL_STEPS=6 bash -c '. scripts/dev/session_lib.sh; gpu_tests_run "$0" "Variants.GroupGemm:Variants.StreamTokensRelaunch:Variants.Gemm" 300' "$OUT" ;;
    verify)
      verify_gemms "$NEW" "$OUT" lazy-dealt decoded "${K[@]}"
      verify_gemms "$NEW" "$OUT" stream-ls6-lazy-dealt decoded NVFP4_PERSISTENT_TOKENS=stream NVFP4_PERSISTENT_LOCAL_STEPS=6 "${K[@]}"
      verify_gemms "$NEW" "$OUT" stream-ls4-lazy decoded NVFP4_PERSISTENT_TOKENS=stream NVFP4_PERSISTENT_LOCAL_STEPS=4 NVFP4_PERSISTENT_LAZY_FIRST=1 ;;
    ab)
      ROUNDS=${ROUNDS:-3} MAXT=0.4 ab_problems "$OUT" ab "${P199_AB:-group_gemm}" base=$BASE new=$NEW \
        ls6=$NEW:NVFP4_PERSISTENT_LOCAL_STEPS=6 \
        ls6-lazy=$NEW:NVFP4_PERSISTENT_LOCAL_STEPS=6,NVFP4_PERSISTENT_LAZY_FIRST=1 \
        ls6-lazy-dealt=$NEW:NVFP4_PERSISTENT_LOCAL_STEPS=6,NVFP4_PERSISTENT_LAZY_FIRST=1,NVFP4_PERSISTENT_DEALT=1 \
        lazy=$NEW:NVFP4_PERSISTENT_LAZY_FIRST=1 ;;
    trace)
      TRACE_ROWS=$ROWS trace_table "$OUT" ls6 group_gemm 192x3072x4096,320x3072x4096 NVFP4_PERSISTENT_LOCAL_STEPS=6
      TRACE_ROWS=$ROWS trace_table "$OUT" ls6-lazy group_gemm 192x3072x4096,320x3072x4096 NVFP4_PERSISTENT_LOCAL_STEPS=6 NVFP4_PERSISTENT_LAZY_FIRST=1
      TRACE_ROWS=$ROWS trace_table "$OUT" ls6-lazy-dealt group_gemm 192x3072x4096,320x3072x4096 NVFP4_PERSISTENT_LOCAL_STEPS=6 "${K[@]}" ;;
  esac
}
run_steps "tests verify ab trace"
