#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P196 (docs/perf-notes.md): branch p196-local-half. .carry/base = main's build, .carry/new = the branch's.
#   scripts/dev/p196_session.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
gpu_tests_run "$OUT" 'Variants.GroupGemm:Variants.StreamTokensRelaunch:Variants.TokenModes:Variants.PersistentGroupRoleLoops:Variants.PersistentEveryIssuerCount' 300
verify_configs "$NEW" "$OUT" default decoded group_gemm "configs/gpumode/group_gemm.json configs/gemm_edges.json configs/smoke.json"
verify_configs "$NEW" "$OUT" stream-lg2 decoded group_gemm "configs/gpumode/group_gemm.json configs/gemm_edges.json configs/smoke.json" \
  NVFP4_PERSISTENT_TOKENS=stream NVFP4_PERSISTENT_LOCAL_GROUPS=2
verify_configs "$NEW" "$OUT" stream-lg1 decoded group_gemm "configs/gemm_edges.json" NVFP4_PERSISTENT_TOKENS=stream NVFP4_PERSISTENT_LOCAL_GROUPS=1
sanitize_run "$NEW" "$OUT" group_gemm 100x512x1024,200x512x1024 NVFP4_PERSISTENT_TOKENS=stream NVFP4_PERSISTENT_LOCAL_GROUPS=2
ROUNDS=3 MAXT=0.4 ab_problems "$OUT" ab "group_gemm gemm" base=$BASE new=$NEW
