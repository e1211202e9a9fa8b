#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P176 probe (docs/perf-notes.md): a CTA's last 32 KiB tile stored by 16-byte STG (the staged
# copy_out's form) or by 256-byte bulk copies, under Nsight Compute's gpu__time_duration.
# scripts/dev/store_probe.cu built as .carry/store_probe.   scripts/dev/p176_probe.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
ncu --clock-control none --cache-control none -k regex:k_tile --metrics gpu__time_duration.sum .carry/store_probe >"$OUT/store.txt" 2>&1
python3 - "$OUT/store.txt" <<'PY'
import re, sys, collections
d = collections.defaultdict(list); name = None
names = {"0": "k_none (tile to shared memory only)", "1": "k_stg (LDS + STG, 8 x 16 B a thread)",
         "2": "k_bulk (128 x 256 B, wait for reads)", "3": "k_bulk_full (128 x 256 B, wait for completion)"}
for line in open(sys.argv[1]):
    m = re.match(r"\s+void k_tile<(?:\(int\))?(\d)>.*\((\d+), 1, 1\)x", line)
    if m: name = f"{m.group(2):>3} CTAs " + names[m.group(1)]; continue
    m = re.search(r"gpu__time_duration.sum\s+(\S+)\s+([\d.,]+)", line)
    if m and name:
        v = float(m.group(2).replace(",", "")); v = v / 1000 if m.group(1) in ("nsecond", "ns") else v
        d[name].append(v)
for k in sorted(d):
    v = sorted(d[k]); print(f"{k:50s} n={len(v):2d} min {v[0]:7.2f} median {v[len(v)//2]:7.2f} us")
PY
grep -m3 -i "error\|warn" "$OUT/store.txt"
