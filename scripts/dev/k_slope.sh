#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A case's time against K on a report build (no stamps, no probe code: docs/perf-notes.md P206), and
# the time each added K step costs: where a trace build's in-loop stamps change the K loop's code
# (P205: 192-213 SASS lines a step against 116), this is how to read a loop's rate and a case's fixed
# part (the time that does not grow with K).
#   scripts/dev/k_slope.sh BIN PROBLEM SHAPE_WITH_K [KS] [VARIANTS]
# SHAPE_WITH_K: the shape with K where the depth goes, e.g. 192x3072xK,320x3072xK; KS default
# "512 1024 2048 4096 8192"; VARIANTS default persistent (comma-separated). Prints, per variant, K,
# the median us (cupti, cold L2) and the us per added 64-deep K step against the previous K.
set -euo pipefail
bin=$1 prob=$2 shape=$3
ks=${4:-512 1024 2048 4096 8192}
variants=${5:-persistent}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for k in $ks; do
  "$bin" --problem "$prob" --shape "${shape//K/$k}" --variant "$variants" --timer cupti --no-floor --quiet \
    --json "$tmp/k$k.json" >/dev/null 2>&1 || true
done
python3 - "$tmp" "$prob" "$shape" $ks <<'PY'
import json, os, sys
tmp, prob, shape, ks = sys.argv[1], sys.argv[2], sys.argv[3], [int(k) for k in sys.argv[4:]]
rows = {}
for k in ks:
    path = os.path.join(tmp, f"k{k}.json")
    if not os.path.exists(path):
        print(f"{prob} {shape}: K={k}: no report (the run failed)")
        continue
    for r in json.load(open(path))["results"]:
        t = r.get("timing") or {}
        rows.setdefault(r["variant"], []).append((k, r["status"], t.get("median_us")))
for v, pts in rows.items():
    print(f"{prob} {shape} {v}:")
    prev = None
    for k, status, us in pts:
        step = ""
        if prev and us is not None and prev[1] is not None and k > prev[0]:
            step = f"  {(us - prev[1]) / ((k - prev[0]) / 64):.4f} us per added K step"
        print(f"  K={k:6d} {status:5s} {us if us is not None else float('nan'):9.3f} us{step}")
        prev = (k, us)
PY
