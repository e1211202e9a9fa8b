#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Which forced persistent group_gemm plan of the test configs does not finish (P125's session):
#   [CTAS="2x128 3x128 2x256"] [HT=60] scripts/dev/hang_hunt.sh BIN OUT   (HT: seconds per run)
set -uo pipefail
BIN=$1 OUT=$2
. "$(dirname "$0")/gpu_env.sh"
mkdir -p "$OUT"
for cta in ${CTAS:-2x128 3x128 2x256}; do
  for nb in 0:1 64:1 96:1 96:0; do
    for cfg in configs/gpumode/group_gemm.json configs/smoke.json configs/gemm_edges.json; do
      t0=$(date +%s.%N)
      NVFP4_PERSISTENT_CTA=$cta NVFP4_PERSISTENT_NARROW=${nb%:*} NVFP4_PERSISTENT_BALANCE=${nb#*:} timeout ${HT:-60} \
        $BIN --config $cfg --problem group_gemm --variant persistent --verify-only --quiet \
        --json "$OUT/$cta-${nb/:/-}-$(basename $cfg)" >"$OUT/$cta-${nb/:/-}-$(basename $cfg .json).log" 2>&1
      rc=$?
      echo "$cta narrow:balance=$nb $(basename $cfg) exit $rc $(python3 -c "print(round($(date +%s.%N)-$t0,1))")s"
    done
  done
done
