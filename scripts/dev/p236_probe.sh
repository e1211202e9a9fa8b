#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P236 probe (docs/perf-notes.md): scripts/dev/start_probe.cu (built in .carry/sp) under Nsight
# Compute and on its own (its %globaltimer stamps), then main's report build (.carry/new) on gemm
# 128x7168 at K = 256, 512, 2048, `persistent` and `cublaslt`, cupti, cold L2; then the same two
# variants at K = 256 and 2048 under Nsight Compute with its own cache flush (--cache-control all), and
# start_probe under the same, so that the three are read on one measure.
#   scripts/dev/p236_probe.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
timeout 60 .carry/sp/start_probe | tee "$OUT/stamps.txt"
timeout 120 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum .carry/sp/start_probe >"$OUT/ncu.txt" 2>&1
python3 - "$OUT/ncu.txt" <<'PY'
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
    if xs: print(f"NCU {name:28s} n={len(xs)} min {xs[0]:.2f} median {xs[len(xs)//2]:.2f} us")
PY
for k in 256 512 2048; do
  for r in 1 2; do
    .carry/new/nvfp4bench --problem gemm --shape 128x7168x$k --variant persistent,cublaslt --timer cupti --no-floor \
      --max-time 0.4 --quiet --json "$OUT/k.json" >/dev/null 2>"$OUT/k.err"
    python3 -c "
import json,sys
for r in json.load(open(sys.argv[1]))['results']:
    print('K', sys.argv[2], 'round', sys.argv[3], r['variant'], r['status'], (r.get('timing') or {}).get('median_us'))" "$OUT/k.json" $k $r
  done
done
timeout 120 ncu --clock-control none --cache-control all --metrics gpu__time_duration.sum .carry/sp/start_probe >"$OUT/ncu_all.txt" 2>&1
echo "start_probe under ncu --cache-control all:"
python3 - "$OUT/ncu_all.txt" <<'PY'
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
    if xs: print(f"NCU-ALL {name:36s} n={len(xs)} min {xs[0]:.2f} median {xs[len(xs)//2]:.2f} us")
PY
for k in 256 2048; do
  timeout 150 ncu --clock-control none --cache-control all --metrics gpu__time_duration.sum -c 60 \
    .carry/new/nvfp4bench --problem gemm --shape 128x7168x$k --variant persistent,cublaslt --timer events --no-floor \
    --max-time 0.05 --quiet >"$OUT/ncu_k$k.txt" 2>&1
  echo "nvfp4bench K=$k under ncu --cache-control all (first 60 kernels; median per kernel name):"
  python3 - "$OUT/ncu_k$k.txt" <<'PY'
import re, sys, collections
d = collections.defaultdict(list); name = None
for line in open(sys.argv[1]):
    m = re.match(r"\s+(\S.*?)\s\(\d+, \d+, \d+\)x\(\d+, \d+, \d+\)", line)
    if m: name = m.group(1)[:90]; continue
    m = re.search(r"gpu__time_duration.sum\s+(\S+)\s+([\d.,]+)", line)
    if m and name:
        x = float(m.group(2).replace(",", "")); d[name].append(x / 1000 if m.group(1) in ("nsecond", "ns") else x); name = None
for k, v in d.items():
    v.sort(); print(f"  n={len(v):2d} min {v[0]:8.2f} median {v[len(v)//2]:8.2f} us  {k}")
PY
done
