#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Medians over CTAs of a probe build's per-CTA stamps (NVFP4BENCH_TRACE=ON, NVFP4_TRACE_OUT).

  scripts/dev/trace_summary.py TRACE_FILE

Each line of the file is "plan|s0,s1,...,s79" (kTraceSlots values) (ns, %globaltimer) for one CTA of one runner's last
launch; consecutive lines with the same plan and one runner form a launch (a new runner starts where
the slot-0 stamps jump back or the plan changes). Prints, per launch, each stamp's median and max
over the CTAs that wrote it, in us from the launch's first entry stamp.
"""
import statistics
import sys

# gemm_wgmma.cuh TraceSlot, in order; then, from UNITS_AT, UNIT_SLOTS slots for each of a CTA's
# first UNITS units (TraceUnitSlot): next_work returned, first stage full, K loop done,
# group | width << 8, epilogue start, stores issued, the previous unit's held stage freed.
SLOTS = ["entry", "consumer start", "share/local stored", "share/local synced", "counted/local issued", "tokens: all counted",
         "tokens: first copy", "weights: first copy", "weights: held released", "done", "weights: next_work",
         "weights: set-up", "epilogue: summed", "split: stored", "split: counted", "split: all ranks counted"]
UNITS_AT, UNITS, UNIT_SLOTS = len(SLOTS), 8, 8
DONE = SLOTS.index("done")
# What the summary prints: each named slot, and the first unit's times.
COLUMNS = [(name, k) for k, name in enumerate(SLOTS)] + [
    ("consumers: next_work", UNITS_AT), ("first full", UNITS_AT + 1), ("first loop end", UNITS_AT + 2)]


def launches(path):
    cur, plan = [], None
    for line in open(path):
        p, _, vals = line.rstrip("\n").rpartition("|")
        v = [int(x) for x in vals.split(",")]
        if cur and (p != plan or (v[0] and cur[-1][0] and v[0] + 10**9 < cur[-1][0])):
            yield plan, cur
            cur = []
        plan = p
        cur.append(v)
    if cur:
        yield plan, cur


def last_launch(path):
    """The CTAs' slot values of the file's last launch."""
    rows = None
    for _, rows in launches(path):
        pass
    return rows


def unit_stamps(v, u):
    """Unit u's TraceUnitSlot values (next_work, first full, loop end, group | width << 8, epilogue,
    stored, held freed) in one CTA's slot values v."""
    return v[UNITS_AT + UNIT_SLOTS * u: UNITS_AT + UNIT_SLOTS * u + 7]


def main():
    for plan, ctas in launches(sys.argv[1]):
        t0 = min(v[0] for v in ctas if v[0])
        print(f"== {plan[:150]} ({len(ctas)} CTAs)")
        for name, k in COLUMNS:
            xs = [(v[k] - t0) / 1000 for v in ctas if v[k]]
            if xs:
                print(f"  {name:24s} median {statistics.median(xs):7.2f}  max {max(xs):7.2f}  ({len(xs)} CTAs)")


if __name__ == "__main__":
    main()
