#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine probe of docs/perf-notes.md P135: each CTA's done stamp of `persistent` G=8 N=7168 from a build
# with NVFP4BENCH_TRACE=ON carried in .carry/trace (the last timed launch), by CTA index.
#   scripts/dev/p135_trace.sh      (writes under $OUT/t)
set -uo pipefail
. scripts/dev/gpu_env.sh
B=.carry/trace/nvfp4bench
C=group_gemm
S=40x7168x2048,76x7168x2048,168x7168x2048,72x7168x2048,164x7168x2048,148x7168x2048,196x7168x2048,160x7168x2048
mkdir -p $OUT/t
NVFP4_TRACE_OUT=$OUT/t/g8b.trace $B --problem $C --shape $S --variant persistent --timer cupti --no-floor --max-time 0.3 --quiet --json $OUT/t/g8b.json >/dev/null 2>&1; echo "exit $?"
python3 - $OUT/t/g8b.trace <<'PY'
import sys
lines=[l.rstrip('\n').rpartition('|') for l in open(sys.argv[1])]
v=[[int(x) for x in l[2].split(',')] for l in lines]
t0=min(x[0] for x in v if x[0])
print(lines[0][0][:250])
print('done', [round((x[11]-t0)/1000,1) for x in v])
PY
