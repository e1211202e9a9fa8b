#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine call at a session's start, over the build carried in .carry/new: verify-only of the
# GEMM-family configs (group_gemm through group_verify.sh), the cut-unit and group GPU tests, and
# the default report into $OUT:   OUT=DIR bash scripts/dev/session_check.sh
set -uo pipefail
tar xJf .carry/bins.tar.xz -C .carry && . scripts/dev/gpu_env.sh
. scripts/dev/group_verify.sh
NEW=.carry/new/nvfp4bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
mkdir -p $OUT/v
group_verify $NEW $OUT/v "units cut" default
for cfg in configs/gpumode/gemm.json configs/gpumode/dual_gemm.json configs/gemm_edges.json configs/smoke.json; do
  $NEW --config $cfg --variant persistent,tensor-core,vectorized --verify-only --quiet --json $OUT/v/$(basename $cfg) >>$OUT/v/verify2.log 2>&1
  echo "$cfg exit $? $(python3 -c "import json,sys,collections;print(dict(collections.Counter(x['status'] for x in json.load(open(sys.argv[1]))['results'])))" $OUT/v/$(basename $cfg))"
done
timeout 300 .carry/new/gpu_tests --gtest_filter='Variants.CutUnitsRelaunch:Variants.PersistentGroupNarrowAndBalance:Variants.GroupGemm:Variants.StreamTokensRelaunch:Variants.PersistentRejectsBadKnobs' >$OUT/gpu_tests.log 2>&1
echo "gpu_tests exit $?"; grep -E "^\[  (PASSED|FAILED) |^\[       OK|FAILED TEST|Failure" $OUT/gpu_tests.log | head -20
$NEW --config configs/default.json --samples --json $OUT/default.json --csv $OUT/default.csv --markdown $OUT/default.md --quiet > $OUT/default.log 2>&1
echo "default exit $?"
