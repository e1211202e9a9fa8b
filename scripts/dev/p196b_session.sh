#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P196b (docs/perf-notes.md): branch p196-local-half, warp 3 on the last 2 local steps. .carry/base =
# main's build, .carry/new = the branch's; .carry/trace-a / trace-b the branch's / main's trace builds.
#   scripts/dev/p196b_session.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
gpu_tests_run "$OUT" 'Variants.GroupGemm:Variants.StreamTokensRelaunch' 200
verify_configs "$NEW" "$OUT" default decoded group_gemm "configs/gpumode/group_gemm.json configs/gemm_edges.json configs/smoke.json"
verify_configs "$NEW" "$OUT" stream-lg2 decoded group_gemm "configs/gemm_edges.json configs/smoke.json" \
  NVFP4_PERSISTENT_TOKENS=stream NVFP4_PERSISTENT_LOCAL_GROUPS=2
ROUNDS=3 MAXT=0.4 ab_problems "$OUT" ab group_gemm base=$BASE new=$NEW
P196_RUNS=1 bash scripts/dev/p196_trace.sh "$OUT/trace" | grep -E '====|128 wide|unit next_work|P196|first loop end|  done'
