#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P220 (docs/perf-notes.md; a build with scripts/dev/p220_stagger.patch applied, not merged): gemm's 2-rank
# decoder-CTA plans with staggered ranks (kStag,
# NVFP4_PERSISTENT_STAGGER, default 3). ab: the new build at 0 (the old kernel), 2, 3 and 4 on the
# gemm cases with 2-rank plans; verify: gemm's configs by default, at 1 and 4, and with the tokens
# forced to decoder CTAs at 0-2 local groups; tests / sanitize at the default.
#   scripts/dev/p220_session.sh OUT [ab] [verify] [tests] [sanitize] [report]   (.carry/new with gpu_tests)
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
S=NVFP4_PERSISTENT_STAGGER
step() {
  case $1 in
    ab)
      ab_cases "$OUT" "s0=$NEW:$S=0 s2=$NEW:$S=2 s3=$NEW s4=$NEW:$S=4" "gemm 128x7168x2048" "gemm 128x7168x16384"
      "$NEW" --problem gemm --shape 128x7168x2048 --variant persistent --verify-only --quiet --json "$OUT/plan.json" \
        >/dev/null 2>&1
      python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print(r['status'], r.get('plan'))" "$OUT/plan.json" ;;
    verify)
      verify_gemms "$NEW" "$OUT" default staggered
      verify_gemms "$NEW" "$OUT" s1 staggered "$S=1"
      verify_gemms "$NEW" "$OUT" s4 staggered "$S=4"
      for lg in 0 1 2; do
        verify_gemms "$NEW" "$OUT" "stream-lg$lg" staggered NVFP4_PERSISTENT_TOKENS=stream NVFP4_PERSISTENT_LOCAL_GROUPS=$lg
      done ;;
    tests)
      gpu_tests_run "$OUT" "Variants.Gemm:Variants.StaggeredRanksRelaunch:Variants.StreamTokensRelaunch:Variants.TokenModes:Variants.PersistentRejectsBadKnobs:Variants.PersistentEverySchedule:Variants.EverySplitCount" 300 ;;
    sanitize)
      sanitize_run "$NEW" "$OUT" gemm 128x7168x2048
      sanitize_run "$NEW" "$OUT" gemm 200x776x2560 NVFP4_PERSISTENT_TOKENS=stream NVFP4_PERSISTENT_SPLITS=2 "$S=4" ;;
    report) default_report "$NEW" "$OUT" default ;;
  esac
}
run_steps "verify ab tests sanitize"
