#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P204b / P205 / P206 (docs/perf-notes.md), one device call:
#   P204b  scripts/dev/kloop_probe.cu's loop forms (.carry/kloop_probe)
#   P205   which of the first 64 K steps find their stage not full, counted by a test_wait with no
#          clock read (branch p203-sparse's trace build, .carry/trace), step stamps 0 and last only
#   P206   the report build's time against K (.carry/base): the per-step cost of the first steps
#          against the later ones without any stamp
#   scripts/dev/p205_session.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
echo "## P204b"
./.carry/kloop_probe
echo "## P205"
for i in 1 2; do
  for c in "group_gemm 192x3072x4096,320x3072x4096" "gemm 128x7168x2048" "gemm 128x4096x7168"; do
    set -- $c
    trace_run "$OUT" "w$i-$1" "$1" "$2" NVFP4_TRACE_STEP_MASK=0x30 2>/dev/null | head -n 1
    python3 scripts/dev/clock_ramp.py "$OUT/w$i-$1.trace" | head -n 24
  done
done
echo "## P206 (report build, cupti, cold L2): K, median us"
for i in 1 2; do
  for shape in 192x3072xK,320x3072xK 128x7168xK; do
    p=group_gemm
    [ "$shape" = 128x7168xK ] && p=gemm
    for k in 512 1024 2048 4096 8192; do
      s=${shape//K/$k}
      .carry/base/nvfp4bench --problem $p --shape "$s" --variant persistent --timer cupti --no-floor --quiet \
        --json "$OUT/k.json" >/dev/null 2>&1
      python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print(sys.argv[2], sys.argv[3], r['status'], r['timing']['median_us'])" "$OUT/k.json" $p "$s"
    done
  done
done
