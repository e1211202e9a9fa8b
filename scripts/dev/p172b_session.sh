#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P172b (docs/perf-notes.md): main's merged build (persistent's tokens raw) in .carry/new (nvfp4bench,
# gpu_tests): verify-only of persistent and tensor-core with each token path forced, the GPU tests of
# the persistent token paths and schedules, and the default report.
#   scripts/dev/p172b_session.sh OUT [verify|tests|report ...]
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
CONFIGS="configs/gpumode/gemm.json configs/gpumode/dual_gemm.json configs/gpumode/group_gemm.json configs/gemm_edges.json configs/smoke.json"
step() {
  case $1 in
    verify)
      for mode in default "prepass NVFP4_PERSISTENT_TOKENS=prepass NVFP4_TENSOR_CORE_TOKENS=prepass" \
                  "fused NVFP4_PERSISTENT_TOKENS=fused NVFP4_TENSOR_CORE_TOKENS=fused" "stream NVFP4_PERSISTENT_TOKENS=stream"; do
        set -- $mode
        local name=$1 cfg
        shift
        for cfg in $CONFIGS; do
          env "$@" timeout 300 $NEW --config "$cfg" --variant persistent,tensor-core --verify-only --quiet \
            --json "$OUT/v_${name}_$(basename "$cfg")" >>"$OUT/verify.log" 2>&1 || echo "$name $cfg exit $?"
        done
        python3 -c "
import json,sys,glob,collections
c=collections.Counter(r['status'] for f in glob.glob(sys.argv[1]+'/v_'+sys.argv[2]+'_*') for r in json.load(open(f))['results'])
print(sys.argv[2], dict(c))" "$OUT" "$name"
      done ;;
    tests) gpu_tests_run "$OUT" 'Variants.Gemm:Variants.DualGemm:Variants.GroupGemm:Variants.TokenModes:Variants.FusedTokensRelaunch:Variants.WideFusedTokensRelaunch:Variants.CutUnitsRelaunch:Variants.StreamTokensRelaunch:Variants.GlobalSplitRelaunch:Variants.PersistentEverySchedule:Variants.PersistentGroupRoleLoops:Variants.PersistentGroupNarrowAndBalance:Variants.PulledReduction' 420 ;;
    report) default_report $NEW "$OUT" default ;;
  esac
}
run_steps "report verify tests"
