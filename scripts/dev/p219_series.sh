#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P219c: the G=2 cases' ratio to `cublaslt` over separate processes (as P193 / P214c), one binary.
#   scripts/dev/p219_series.sh BIN [ROUNDS]
set -euo pipefail
bin=$1 rounds=${2:-6}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for shape in 192x3072x4096,320x3072x4096 128x4096x1536,384x4096x1536; do
  for i in $(seq "$rounds"); do
    "$bin" --problem group_gemm --shape "$shape" --variant persistent,cublaslt --timer cupti --no-floor --quiet \
      --json "$tmp/r$i.json" >/dev/null 2>&1 || true
  done
  python3 - "$tmp" "$shape" "$rounds" <<'PY'
import json, os, statistics, sys
tmp, shape, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
ratios, rows = [], []
for i in range(1, rounds + 1):
    p = os.path.join(tmp, f"r{i}.json")
    if not os.path.exists(p):
        continue
    t = {r["variant"]: (r.get("timing") or {}).get("median_us") for r in json.load(open(p))["results"]}
    if t.get("persistent") and t.get("cublaslt"):
        ratios.append(t["cublaslt"] / t["persistent"])
        rows.append(f"{t['persistent']:.2f}/{t['cublaslt']:.2f}")
print(f"group_gemm {shape}: persistent/cublaslt us {' '.join(rows)}")
if ratios:
    print(f"  x cublaslt: min {min(ratios):.3f} median {statistics.median(ratios):.3f} max {max(ratios):.3f} ({len(ratios)} processes)")
PY
done
