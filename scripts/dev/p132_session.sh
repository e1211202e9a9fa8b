#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine session of docs/perf-notes.md P132 (group_gemm's tables prefetched into L2 by the
# pre-pass), over builds carried in .carry/base (main) and .carry/new, then both builds' default
# reports (the one to commit is the one whose code lands):   scripts/dev/p132_session.sh OUT
set -uo pipefail
OUT=$1
. "$(dirname "$0")/gpu_env.sh"
. "$(dirname "$0")/group_verify.sh"
NEW=.carry/new/nvfp4bench BASE=.carry/base/nvfp4bench
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
echo "==== verify"
group_verify $NEW "$OUT" "pre-pass" default
group_verify $NEW "$OUT" "pre-pass" tp0 NVFP4_PERSISTENT_TABLE_PREFETCH=0
echo "==== tests"
timeout 120 .carry/new/gpu_tests --gtest_filter='Variants.GroupGemm:Variants.PersistentGroupNarrowAndBalance:Variants.PersistentRejectsBadKnobs' \
  >"$OUT/gpu_tests.log" 2>&1
echo "gpu_tests exit $?"; grep -E "^\[  (PASSED|FAILED) |^\[       OK|FAILED TEST|Failure" "$OUT/gpu_tests.log" | head -n 20
echo "==== ab"
python3 scripts/dev/ab.py --rounds ${ROUNDS:-3} --out "$OUT/ab" --build base=$BASE --build new=$NEW \
  --build new-tp0=$NEW:NVFP4_PERSISTENT_TABLE_PREFETCH=0 \
  -- --config configs/gpumode/group_gemm.json --role benchmark --variant persistent --timer cupti --no-floor \
  --max-time ${MAXT:-1} | tee "$OUT/ab_group.txt"
echo "==== reports"
for b in base new; do
  .carry/$b/nvfp4bench --config configs/default.json --samples --json $OUT/default_$b.json --csv $OUT/default_$b.csv \
    --markdown $OUT/default_$b.md --quiet >$OUT/default_$b.log 2>&1
  echo "$b default exit $? $(tail -n 1 $OUT/default_$b.log)"
done
