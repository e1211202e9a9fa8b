#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P234 probe (docs/perf-notes.md): gemm 128x4096x7168's 4-rank end staggered (scripts/dev/p234_stagger.patch,
# -DNVFP4_PROBE_STAGGER=1, carried in .carry/stag/) against main's report build (.carry/base/), pair 0
# taking NVFP4_PROBE_STAGGER_STEPS = e more K steps; cupti, cold L2, ROUNDS rounds alternated (mode_rounds), every
# first launch verified; then verify-only of the gpu-mode gemm and dual_gemm configs at e = 3.
#   scripts/dev/p234_probe.sh OUT
. "$(dirname "$0")/session_lib.sh"
OUT=$1
session_start "$OUT"
mode_rounds "$OUT" "${SHAPES:-128x4096x7168}" "base:base:" "e0:stag:NVFP4_PROBE_STAGGER_STEPS=0" \
  "e2:stag:NVFP4_PROBE_STAGGER_STEPS=2" "e3:stag:NVFP4_PROBE_STAGGER_STEPS=3" "e4:stag:NVFP4_PROBE_STAGGER_STEPS=4"
for p in gemm dual_gemm; do
  NVFP4_PROBE_STAGGER_STEPS=3 .carry/stag/nvfp4bench --config configs/gpumode/$p.json --variant persistent --verify-only \
    --quiet --json "$OUT/v_$p.json" >/dev/null 2>&1
  echo "verify-only $p e=3 exit $? $(python3 -c "
import json,sys,collections; r=json.load(open(sys.argv[1]))['results']
print(dict(collections.Counter(x['status'] for x in r)), sum('through L2 after pairs' in (x.get('plan') or '') for x in r), 'staggered-plan cases')" "$OUT/v_$p.json" 2>&1 | tail -1)"
done
