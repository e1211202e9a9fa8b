#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P218 (docs/perf-notes.md): the `persistent` group_gemm K step's time by wgmma width, read on a
# report build: one group of M = 64, 96, 128 tokens over N = 16384 (128 units of one 128-token tile,
# each run at its narrow width) against K (k_slope.sh), and each case's plan.
#   scripts/dev/p218_widths.sh BIN
set -euo pipefail
bin=$1
for m in 64 96 128; do
  bash "$(dirname "$0")/k_slope.sh" "$bin" group_gemm "${m}x16384xK" "2048 4096 8192"
  "$bin" --problem group_gemm --shape "${m}x16384x4096" --variant persistent --verify-only --quiet --json /tmp/p218.json \
    >/dev/null 2>&1 || true
  python3 -c "import json; r=json.load(open('/tmp/p218.json'))['results'][0]; print('  plan:', r.get('status'), r.get('plan'))"
done
