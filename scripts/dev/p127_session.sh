#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine session of docs/perf-notes.md P127 (the 2 x 128 fused share in two phases; reverted,
# the build is gone: kept as the record of what ran), over builds carried in .carry/base (P126) and
# .carry/new:   scripts/dev/p127_session.sh OUT [steps...]   (verify tests ab)
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
for step in ${STEPS:-verify tests ab}; do
  echo "==== $step"
  case $step in
    verify) for n in 1 2 4; do verify_gemms $NEW "$OUT" "e$n" "counted first" NVFP4_PERSISTENT_FUSE_EARLY=$n; done ;;
    tests)
      gpu_tests_run "$OUT" 'Variants.FusedPhasesRelaunch:Variants.FusedTokensRelaunch:Variants.GlobalSplitRelaunch:Variants.PersistentRejectsBadKnobs:Variants.Gemm:Variants.GroupGemm' ;;
    ab)
      ab_problems "$OUT" ab "gemm group_gemm" base=$BASE new=$NEW new-e1=$NEW:NVFP4_PERSISTENT_FUSE_EARLY=1 \
        new-e2=$NEW:NVFP4_PERSISTENT_FUSE_EARLY=2 new-e4=$NEW:NVFP4_PERSISTENT_FUSE_EARLY=4 ;;
  esac
done
