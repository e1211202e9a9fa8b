#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P210 (docs/perf-notes.md): which chain gates G=2 [192,320]'s first K step in the report build,
# without stamps: the weights' issuing role or the consumers' local-token store delayed by a known
# time (NVFP4_PROBE_WDELAY / NVFP4_PROBE_TDELAY / NVFP4_PROBE_SDELAY: the scales' role, ns; scripts/dev/p210_delay_probe.patch), against
# the same binary undelayed, at K = 512 and 4096 (scripts/dev/ab.py, alternated).
#   scripts/dev/p210_session.sh OUT      (.carry/new = the probe build)
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
for k in 512 4096; do
  echo "==== K=$k"
  python3 scripts/dev/ab.py --rounds "${ROUNDS:-3}" --out "$OUT/k$k" \
    --build "d0=$NEW:NVFP4_PROBE_WDELAY=0,NVFP4_PROBE_TDELAY=0" --build "w2000=$NEW:NVFP4_PROBE_WDELAY=2000" \
    --build "t500=$NEW:NVFP4_PROBE_TDELAY=500" --build "t1000=$NEW:NVFP4_PROBE_TDELAY=1000" \
    --build "s500=$NEW:NVFP4_PROBE_SDELAY=500" --build "s1000=$NEW:NVFP4_PROBE_SDELAY=1000" \
    --build "s2000=$NEW:NVFP4_PROBE_SDELAY=2000" \
    -- --problem group_gemm --shape "192x3072x$k,320x3072x$k" --variant persistent --timer cupti --no-floor \
    --max-time 0.4 2>&1
done
