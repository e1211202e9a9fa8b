#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P236d probe (docs/perf-notes.md): scripts/dev/start_probe.cu (built in .carry/sp) with
# nvfp4bench's own clean read flush before each launch, alone (stamps) and under Nsight Compute with
# no flush of its own (--cache-control none): the skeleton in the issue's measure, with the
# cp.async-fed start and one local token step (m9) added.
#   scripts/dev/p236d_probe.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
timeout 60 .carry/sp/start_probe read | tee "$OUT/stamps.txt"
timeout 120 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum .carry/sp/start_probe read \
  >"$OUT/ncu_none.txt" 2>&1
python3 - "$OUT/ncu_none.txt" <<'PY'
import re, sys
modes = [l.split("STAMPS ")[1].split(" us from")[0].strip() for l in open(sys.argv[1]) if l.startswith("STAMPS")]
v = []
for line in open(sys.argv[1]):
    if re.match(r"\s+(<unnamed>::)?k_start\(", line): v.append(None)
    m = re.search(r"gpu__time_duration.sum\s+(\S+)\s+([\d.,]+)", line)
    if m and v and v[-1] is None:
        x = float(m.group(2).replace(",", "")); v[-1] = x / 1000 if m.group(1) in ("nsecond", "ns") else x
for i, name in enumerate(modes):
    xs = sorted(v[7 * i + 1:7 * i + 7])
    if xs: print(f"NCU-NONE {name:38s} n={len(xs)} min {xs[0]:.2f} median {xs[len(xs)//2]:.2f} us")
PY
grep STAMPS "$OUT/ncu_none.txt" | sed 's/^/(under ncu) /'
