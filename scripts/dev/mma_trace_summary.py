#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Medians over CTAs of a probe build's `tensor-core` stamps (gemm_mma.cuh MmaTraceSlot,
NVFP4BENCH_TRACE=ON, NVFP4_TRACE_OUT): the file's last launch, us from its first entry stamp.

  scripts/dev/mma_trace_summary.py TRACE_FILE
"""
import statistics
import sys

SLOTS = ["entry", "share stored", "counted", "first full", "loop end", "loop synced", "folded", "summed", "stored",
         "push: peer ready", "push: pushed", "push: received"]


def main():
    rows, plan = [], None
    for line in open(sys.argv[1]):
        p, _, vals = line.rstrip("\n").rpartition("|")
        v = [int(x) for x in vals.split(",")]
        if rows and (p != plan or (v[0] and rows[-1][0] and v[0] + 10**9 < rows[-1][0])):
            rows = []
        plan = p
        rows.append(v)
    t0 = min(r[0] for r in rows if r[0])
    print(f"{plan}: {len(rows)} CTAs")
    for k, name in enumerate(SLOTS):
        xs = [(r[k] - t0) / 1000 for r in rows if r[k]]
        if xs:
            print(f"  {name:<14} median {statistics.median(xs):7.2f}  max {max(xs):7.2f}  ({len(xs)} CTAs)")


if __name__ == "__main__":
    main()
