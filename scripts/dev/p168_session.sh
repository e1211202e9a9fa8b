#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P168 (docs/perf-notes.md): the decoder-CTA group kernel's local steps shared with the producer
# warpgroup. main's 869253a build in .carry/base, the branch's in .carry/new (nvfp4bench, gpu_tests).
#   scripts/dev/p168_session.sh OUT [ab|verify|tests ...]
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    ab)
      python3 scripts/dev/ab.py --rounds 4 --out "$OUT/ab" --build base=$BASE --build new=$NEW \
        -- --problem group_gemm --shape 192x3072x4096,320x3072x4096 --variant persistent --timer cupti --no-floor \
        --max-time 1 | tee "$OUT/ab.txt" ;;
    verify)
      verify_groups "$NEW" "$OUT" default "more CTAs of the main launch"
      verify_groups "$NEW" "$OUT" stream-lg1 "more CTAs of the main launch" NVFP4_PERSISTENT_TOKENS=stream NVFP4_PERSISTENT_LOCAL_GROUPS=1
      verify_groups "$NEW" "$OUT" stream-lg2 "more CTAs of the main launch" NVFP4_PERSISTENT_TOKENS=stream NVFP4_PERSISTENT_LOCAL_GROUPS=2 ;;
    tests) gpu_tests_run "$OUT" 'Variants.StreamTokensRelaunch:Variants.GroupGemm' 100 ;;
  esac
}
run_steps "ab verify tests"
