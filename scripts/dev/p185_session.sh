#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P185 (docs/perf-notes.md): main's trace build with P183's and P185's stamps (scripts/dev/p183_trace.patch,
# p185_trace.patch) carried in .carry/trace: G=2 [192,320] at 8 and 4 local steps, twice each, and gemm
# 128x7168x2048, summarised by p183_summary.py (128-wide units and decoders).
#   scripts/dev/p185_session.sh OUT [trace]
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
p185() { TRACE_SKIP='consumer start|fetch:|source|entry|placed|1st chunk|warp 0 done' trace_table "$OUT" "$@"; }
step() {
  case $1 in
    trace)
      for i in 1; do
        for lg in 2 1; do p185 g2a-lg$lg-$i group_gemm 192x3072x4096,320x3072x4096 NVFP4_PERSISTENT_LOCAL_GROUPS=$lg; done
      done
      p185 g2048 gemm 128x7168x2048 ;;
  esac
}
run_steps "trace"
