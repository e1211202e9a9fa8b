#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine call at a session's start, over the build carried in .carry/new: verify-only of the
# GEMM-family configs (group_gemm through group_verify.sh), the cut-unit and group GPU tests, and
# the default report into $OUT:   OUT=DIR bash scripts/dev/session_check.sh
set -uo pipefail
tar xJf .carry/bins.tar.xz -C .carry
. scripts/dev/group_verify.sh
NEW=.carry/new/nvfp4bench
session_start $OUT/v
group_verify $NEW $OUT/v "units cut" default
for cfg in configs/gpumode/gemm.json configs/gpumode/dual_gemm.json configs/gemm_edges.json configs/smoke.json; do
  $NEW --config $cfg --variant persistent,tensor-core,vectorized --verify-only --quiet --json $OUT/v/$(basename $cfg) >>$OUT/v/verify2.log 2>&1
  echo "$cfg exit $? $(python3 -c "import json,sys,collections;print(dict(collections.Counter(x['status'] for x in json.load(open(sys.argv[1]))['results'])))" $OUT/v/$(basename $cfg))"
done
gpu_tests_run $OUT 'Variants.CutUnitsRelaunch:Variants.PersistentGroupNarrowAndBalance:Variants.GroupGemm:Variants.StreamTokensRelaunch:Variants.PersistentRejectsBadKnobs' 300
default_report $NEW $OUT default
