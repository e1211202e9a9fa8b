#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P212 (docs/perf-notes.md): the token warp sleeping NVFP4_PROBE_POLLSLEEP ns between its polls of the decoders' counters (probe build,
# scripts/dev/p212_poll_backoff.patch), against the same binary without the pause and main's build, on the
# decoder-CTA plans (G=2 [192,320], gemm 128x7168x2048 and 128x7168x16384).
#   scripts/dev/p212_session.sh OUT [verify] [ab]      (.carry/new = the probe build, .carry/base = main's)
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    verify)  # exit 0: every case verified
      for d in 200 2000; do
        for c in "group_gemm 192x3072x4096,320x3072x4096" "gemm 128x7168x2048" "group_gemm 128x4096x1536,384x4096x1536"; do
          set -- $c
          NVFP4_PROBE_POLLSLEEP=$d NVFP4_PERSISTENT_TOKENS=stream "$NEW" --problem "$1" --shape "$2" --variant persistent \
            --verify-only --quiet >"$OUT/v.log" 2>&1
          echo "verify d=$d $1 $2 (decoder CTAs forced): exit $?"
        done
      done ;;
    ab)
      for c in "group_gemm 192x3072x4096,320x3072x4096" "gemm 128x7168x2048" "gemm 128x7168x16384"; do
        set -- $c
        echo "== $1 $2"
        python3 scripts/dev/ab.py --rounds "${ROUNDS:-3}" --out "$OUT/ab_$1_${2%%,*}" \
          --build "main=$BASE" --build "p0=$NEW" --build "p50=$NEW:NVFP4_PROBE_POLLSLEEP=50" \
          --build "p200=$NEW:NVFP4_PROBE_POLLSLEEP=200" --build "p500=$NEW:NVFP4_PROBE_POLLSLEEP=500" \
          -- --problem "$1" --shape "$2" --variant persistent --timer cupti --no-floor --max-time 0.4 2>&1 | tail -n 12
      done ;;
  esac
}
run_steps "verify ab"
