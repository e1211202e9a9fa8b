#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""gpu__time_duration from an Nsight Compute text log (ncu --metrics gpu__time_duration.sum).

  ncu_times.py modes FILE LABEL      start_probe's log: its modes in the order of its STAMPS lines,
                                     7 launches of k_start each, the first dropped: min and median
  ncu_times.py kernels FILE [REGEX]  every kernel name (or those matching REGEX): count, min, median
"""
import collections
import re
import sys

METRIC = re.compile(r"gpu__time_duration.sum\s+(\S+)\s+([\d.,]+)")


def micros(m):
    x = float(m.group(2).replace(",", ""))
    return x / 1000 if m.group(1) in ("nsecond", "ns") else x


def modes(path, label):
    lines = open(path).read().splitlines()
    names = [l.split("STAMPS ")[1].split(" us from")[0].strip() for l in lines if l.startswith("STAMPS")]
    v = []
    for line in lines:
        if re.match(r"\s+(<unnamed>::)?k_start\(", line):
            v.append(None)
        m = METRIC.search(line)
        if m and v and v[-1] is None:
            v[-1] = micros(m)
    for i, name in enumerate(names):
        xs = sorted(x for x in v[7 * i + 1:7 * i + 7] if x is not None)
        if xs:
            print(f"{label} {name:38s} n={len(xs)} min {xs[0]:.2f} median {xs[len(xs) // 2]:.2f} us")


def kernels(path, pattern):
    d = collections.defaultdict(list)
    name = None
    for line in open(path):
        m = re.match(r"\s+(\S.*?)\s\(\d+, \d+, \d+\)x\(\d+, \d+, \d+\)", line)
        if m:
            name = m.group(1)[:90]
            continue
        m = METRIC.search(line)
        if m and name:
            d[name].append(micros(m))
            name = None
    for k, v in d.items():
        if pattern is None or re.search(pattern, k):
            v.sort()
            print(f"  n={len(v):2d} min {v[0]:8.2f} median {v[len(v) // 2]:8.2f} us  {k}")


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "modes":
        modes(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 3 and sys.argv[1] == "kernels":
        kernels(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
    else:
        sys.exit(__doc__)
