#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P183 (docs/perf-notes.md): the decoder-CTA plans' start on the probe's trace build (branch
# p183-trace-probe, scripts/dev/p183_trace.patch) carried in .carry/trace, summarised by
# p183_summary.py: G=2 [192,320] at 8 and 4 local steps and gemm 128x7168x2048 (trace), then
# G=2 [192,320] at 4 local steps and gemm 128x7168x2048 with the L2 cold and warm (warm).
#   scripts/dev/p183_session.sh OUT [trace|warm ...]
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
p183() { trace_table "$OUT" "$@"; }
step() {
  case $1 in
    trace)
      for i in 1 2; do
        p183 g2a-lg2-$i group_gemm 192x3072x4096,320x3072x4096
        p183 g2a-lg1-$i group_gemm 192x3072x4096,320x3072x4096 NVFP4_PERSISTENT_LOCAL_GROUPS=1
        p183 g2048-$i gemm 128x7168x2048
      done ;;
    warm)
      for l2 in cold warm; do
        TRACE_ARGS="--l2 $l2" p183 g2a-lg1-$l2 group_gemm 192x3072x4096,320x3072x4096 NVFP4_PERSISTENT_LOCAL_GROUPS=1
        TRACE_ARGS="--l2 $l2" p183 g2048-$l2 gemm 128x7168x2048
      done ;;
  esac
}
run_steps "trace"
