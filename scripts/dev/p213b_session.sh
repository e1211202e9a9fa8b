#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P213b (docs/perf-notes.md): P213's probe build with the decoder CTAs' work skipped in the timed
# launches (NVFP4_PROBE_FREE=1) at fewer local steps (NVFP4_PERSISTENT_LOCAL_GROUPS), against main's
# build at the same and at its default: what infinitely fast decoders would let fewer local steps buy.
#   scripts/dev/p213b_session.sh OUT      (.carry/new = the probe build, .carry/base = main's)
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
echo "== group_gemm 192x3072x4096,320x3072x4096"
python3 scripts/dev/ab.py --rounds "${ROUNDS:-3}" --out "$OUT/ab_g2" \
  --build "main=$BASE" --build "main_lg1=$BASE:NVFP4_PERSISTENT_LOCAL_GROUPS=1" \
  --build "f1_lg2=$NEW:NVFP4_PROBE_FREE=1" --build "f1_lg1=$NEW:NVFP4_PROBE_FREE=1,NVFP4_PERSISTENT_LOCAL_GROUPS=1" \
  --build "f1_lg0=$NEW:NVFP4_PROBE_FREE=1,NVFP4_PERSISTENT_LOCAL_GROUPS=0" \
  -- --problem group_gemm --shape 192x3072x4096,320x3072x4096 --variant persistent --timer cupti --no-floor \
  --max-time 0.4 2>&1 | tail -n 3
for s in 128x7168x2048 128x4096x7168; do
  echo "== gemm $s (decoder CTAs forced where the plan is not theirs)"
  python3 scripts/dev/ab.py --rounds "${ROUNDS:-3}" --out "$OUT/ab_$s" \
    --build "main=$BASE" --build "main_st=$BASE:NVFP4_PERSISTENT_TOKENS=stream" \
    --build "f1_lg1=$NEW:NVFP4_PROBE_FREE=1,NVFP4_PERSISTENT_TOKENS=stream" \
    --build "f1_lg0=$NEW:NVFP4_PROBE_FREE=1,NVFP4_PERSISTENT_TOKENS=stream,NVFP4_PERSISTENT_LOCAL_GROUPS=0" \
    -- --problem gemm --shape "$s" --variant persistent --timer cupti --no-floor --max-time 0.4 2>&1 | tail -n 3
done
