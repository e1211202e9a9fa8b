#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P233 probe (docs/perf-notes.md): gemm 128x4096x7168 forced to 2 K splits on the decoder-CTA token
# path with its decoder CTAs capped (NVFP4_PROBE_DECODERS, scripts/dev/p233_decoder_cap.patch on main's
# report build, carried in .carry/cap/), against the default plan and the fused and pre-pass paths;
# (data-parallel, 2 x 128 forced: P233b; P233 without them got stream-K for that shape);
# cupti, cold L2, ROUNDS rounds of the modes alternated; per run the median and the plan.
#   scripts/dev/p233_probe.sh OUT
. "$(dirname "$0")/session_lib.sh"
OUT=$1
session_start "$OUT"
bin=.carry/cap/nvfp4bench
modes=("default:" "s2-stream:NVFP4_PERSISTENT_SPLITS=2 NVFP4_PERSISTENT_SCHED=data NVFP4_PERSISTENT_CTA=2x128 NVFP4_PERSISTENT_TOKENS=stream"
  "s2-cap8:NVFP4_PERSISTENT_SPLITS=2 NVFP4_PERSISTENT_SCHED=data NVFP4_PERSISTENT_CTA=2x128 NVFP4_PERSISTENT_TOKENS=stream NVFP4_PROBE_DECODERS=8"
  "s2-cap4:NVFP4_PERSISTENT_SPLITS=2 NVFP4_PERSISTENT_SCHED=data NVFP4_PERSISTENT_CTA=2x128 NVFP4_PERSISTENT_TOKENS=stream NVFP4_PROBE_DECODERS=4"
  "s2-fused:NVFP4_PERSISTENT_SPLITS=2 NVFP4_PERSISTENT_SCHED=data NVFP4_PERSISTENT_CTA=2x128 NVFP4_PERSISTENT_TOKENS=fused"
  "s2-prepass:NVFP4_PERSISTENT_SPLITS=2 NVFP4_PERSISTENT_SCHED=data NVFP4_PERSISTENT_CTA=2x128 NVFP4_PERSISTENT_TOKENS=prepass")
for shape in ${SHAPES:-128x4096x7168}; do
  for r in $(seq "${ROUNDS:-3}"); do
    for m in "${modes[@]}"; do
      n=${m%%:*}
      env ${m#*:} "$bin" --problem gemm --shape "$shape" --variant persistent --timer cupti --no-floor --max-time 0.4 \
        --quiet --json "$OUT/p233.json" >/dev/null 2>"$OUT/p233.err"
      echo "$shape $n $r exit $? $(python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print(r['status'], (r.get('timing') or {}).get('median_us'), '|', r.get('plan'))" "$OUT/p233.json" 2>&1 | tail -1) $(tail -n 1 "$OUT/p233.err")"
      rm -f "$OUT/p233.json"
    done
  done
done
