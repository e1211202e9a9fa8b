#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Summarises `ncu --page source --csv --print-source sass` output (PC sampling per SASS instruction,
# docs/perf-notes.md P173): the sample columns' totals, and the runs of instructions executed equally
# often (the K loop, a once-per-CTA path, ...) with their samples and those of one stall reason.
#   pcsamp_summary.py SOURCE.csv [REASON] [MIN_SAMPLES]
# REASON: a column name (default stall_no_inst: warps waiting for an instruction fetch); runs with
# fewer than MIN_SAMPLES (default 30) samples of either kind are left out.
import csv
import sys

path = sys.argv[1]
reason = sys.argv[2] if len(sys.argv) > 2 else "stall_no_inst"
least = float(sys.argv[3]) if len(sys.argv) > 3 else 30
rows = list(csv.reader(open(path, newline="", errors="replace")))
# One table per kernel: a "Kernel Name" line, the column names, then one row per SASS instruction.
tables, name, head, body = [], "", None, []
for r in rows:
    if r and r[0] == "Kernel Name":
        if head:
            tables.append((name, head, body))
        name, head, body = (r[1] if len(r) > 1 else ""), None, []
    elif head is None and "Address" in r and "Source" in r:
        head = r
    elif head is not None and len(r) == len(head):
        body.append(r)
if head:
    tables.append((name, head, body))


def num(x):
    try:
        return float(x.replace(",", ""))
    except ValueError:
        return 0.0


def summary(head, body):
    i_src, i_all, i_why, i_exec = (head.index(c) for c in
                                    ("Source", "Warp Stall Sampling (All Samples)", reason, "Instructions Executed"))
    totals = {c: sum(num(r[i]) for r in body) for i, c in enumerate(head) if c.startswith("stall_") and "Not Issued" not in c}
    all_samples = sum(num(r[i_all]) for r in body)
    print(f"{len(body)} instructions, {all_samples:.0f} samples; by stall reason (share of all samples):")
    print("  " + ", ".join(f"{c[6:]} {v:.0f} ({v / all_samples:.1%})" for c, v in sorted(totals.items(), key=lambda t: -t[1]) if v))
    print(f"runs of instructions executed equally often, with >= {least:.0f} samples or {reason} samples:")
    print("  first-last   count  executed  samples  " + reason + "  first instruction")
    run = None
    runs = []
    for j, r in enumerate(body):
        ex = num(r[i_exec])
        if run is None or run["ex"] != ex:
            run = {"lo": j, "hi": j, "ex": ex, "all": 0.0, "why": 0.0, "src": r[i_src].strip()}
            runs.append(run)
        run["hi"] = j
        run["all"] += num(r[i_all])
        run["why"] += num(r[i_why])
    for x in runs:
        if x["ex"] > 0 and (x["all"] >= least or x["why"] >= least):
            print(f"  {x['lo']:5d}-{x['hi']:5d} {x['hi'] - x['lo'] + 1:6d} {x['ex']:9.0f} {x['all']:8.0f} {x['why']:8.0f}  {x['src'][:60]}")


for name, head, body in tables:
    if len(tables) > 1:
        print(f"== {name[:150]}")
    summary(head, body)
