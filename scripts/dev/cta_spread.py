#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Per-CTA spread of a trace build's start stamps (the last launch in a trace file): whether the CTAs
whose fused share is stored last are the ones that entered last.

  scripts/dev/cta_spread.py TRACE_FILE
"""
import statistics
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from trace_summary import launches, SLOTS  # noqa: E402

plan, rows = list(launches(sys.argv[1]))[-1]
t0 = min(r[0] for r in rows if r[0])
names = ["entry", "consumer start", "share/local stored", "counted/local issued", "tokens: all counted", "weights: first copy"]
idx = [SLOTS.index(n) for n in names]
us = [[(r[i] - t0) / 1000 if r[i] else None for i in idx] for r in rows]
print(plan, len(rows), "CTAs")
for j, n in enumerate(names):
    v = sorted(x[j] for x in us if x[j] is not None)
    if v:
        print(f"  {n:22s} min {v[0]:6.2f} p10 {v[len(v)//10]:6.2f} med {statistics.median(v):6.2f} p90 {v[9*len(v)//10]:6.2f} max {v[-1]:6.2f}")
pairs = [(x[0], x[2], x[3]) for x in us if x[0] is not None and x[2] is not None]
if len(pairs) > 2:
    e, s, c = zip(*pairs)
    print("  corr(entry, stored) %.2f  corr(stored - entry, stored) %.2f" % (
        statistics.correlation(e, s), statistics.correlation([b - a for a, b in zip(e, s)], s)))
    late = sorted(range(len(pairs)), key=lambda i: -s[i])[:8]
    print("  latest stored (cta: entry, stored, counted):", " ".join(f"{i}:{e[i]:.2f}/{s[i]:.2f}/{(c[i] or 0):.2f}" for i in late))
