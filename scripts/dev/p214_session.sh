#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P214 (docs/perf-notes.md): the decoder CTAs' items dealt across the CTAs, each stored before the next
# is fetched. verify: the gpu-mode gemm and group_gemm configs, gemm_edges and smoke by default and with
# the tokens forced to decoder CTAs at 0-2 local groups; ab: main's build against the new one at the
# default and at 4 local steps on the decoder-CTA cases.
#   scripts/dev/p214_session.sh OUT [verify] [ab] [tests]   (.carry/new, .carry/base)
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    verify) verify_token_paths verify_gemms "$NEW" "$OUT" ;;
    ab)
      for c in "group_gemm 192x3072x4096,320x3072x4096" "gemm 128x7168x2048" "gemm 128x7168x16384"; do
        set -- $c
        echo "== $1 $2"
        python3 scripts/dev/ab.py --rounds "${ROUNDS:-3}" --out "$OUT/ab_$1_${2%%,*}" \
          --build "main=$BASE" --build "new=$NEW" \
          --build "main_lg1=$BASE:NVFP4_PERSISTENT_LOCAL_GROUPS=1" --build "new_lg1=$NEW:NVFP4_PERSISTENT_LOCAL_GROUPS=1" \
          -- --problem "$1" --shape "$2" --variant persistent --timer cupti --no-floor --max-time 0.4 2>&1 | tail -n 3
      done ;;
    tests) gpu_tests_run "$OUT" 'Variants.*Stream*:Variants.*Token*:Variants.GroupGemm*:Variants.Gemm*' 300 ;;
  esac
}
run_steps "verify ab"
