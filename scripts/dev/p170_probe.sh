#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P170 probe (docs/perf-notes.md): what a launch of the persistent kernel's form (132 CTAs x 384
# threads, 200 KiB of shared memory, 4 KB of parameters, clusters of 2, 32 KiB of stores per CTA)
# costs by itself, under Nsight Compute's gpu__time_duration (the cupti timer's measure).
# scripts/dev/launch_probe.cu built in .carry/lp.   scripts/dev/p170_probe.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum .carry/lp/launch_probe >"$OUT/launch.txt" 2>&1
python3 - "$OUT/launch.txt" <<'PY'
import re, sys, collections
d = collections.defaultdict(list); name = None
for line in open(sys.argv[1]):
    m = re.match(r"\s+(k_\w+)(\(.*?\))?.*\((\d+), 1, 1\)x\((\d+), 1, 1\)", line)
    if m: name = line.strip().split(" (")[0][:60]; continue
    m = re.search(r"gpu__time_duration.sum\s+(\S+)\s+([\d.,]+)", line)
    if m and name:
        v = float(m.group(2).replace(",", "")); v = v / 1000 if m.group(1) in ("nsecond", "ns") else v
        d[name].append(v)
for k, v in d.items():
    print(f"{k:60s} n={len(v):2d} min {min(v):7.2f} median {sorted(v)[len(v)//2]:7.2f} us")
PY
