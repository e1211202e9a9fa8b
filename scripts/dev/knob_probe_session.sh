#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One probe build's runtime knob on the decoder-CTA plans (P211-P213): verify-only with the knob at
# each VERIFY value (tokens forced to decoder CTAs; exit 0: every case verified), then main's build,
# the probe at 0 and at each AB value alternated (scripts/dev/ab.py) on G=2 [192,320], gemm
# 128x7168x2048 and 128x7168x16384.
#   scripts/dev/knob_probe_session.sh OUT KNOB "VERIFY..." "AB..."   (.carry/new = the probe build, .carry/base = main's)
. "$(dirname "$0")/session_lib.sh"
session_args "$1"
knob=$2 verify_values=$3 ab_values=$4
echo "==== verify"
for d in $verify_values; do
  for c in "group_gemm 192x3072x4096,320x3072x4096" "gemm 128x7168x2048" "group_gemm 128x4096x1536,384x4096x1536"; do
    set -- $c
    env "$knob=$d" NVFP4_PERSISTENT_TOKENS=stream "$NEW" --problem "$1" --shape "$2" --variant persistent \
      --verify-only --quiet >"$OUT/v.log" 2>&1
    echo "verify d=$d $1 $2 (decoder CTAs forced): exit $?"
  done
done
echo "==== ab"
builds=(--build "main=$BASE" --build "v0=$NEW")
for v in $ab_values; do builds+=(--build "v$v=$NEW:$knob=$v"); done
for c in "group_gemm 192x3072x4096,320x3072x4096" "gemm 128x7168x2048" "gemm 128x7168x16384"; do
  set -- $c
  echo "== $1 $2"
  python3 scripts/dev/ab.py --rounds "${ROUNDS:-3}" --out "$OUT/ab_$1_${2%%,*}" "${builds[@]}" \
    -- --problem "$1" --shape "$2" --variant persistent --timer cupti --no-floor --max-time 0.4 2>&1 | tail -n 12
done
