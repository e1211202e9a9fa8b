#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Per wgmma width, the first units' K-loop times from a probe build's stamps (trace_summary.py's file).

  scripts/dev/unit_widths.py TRACE_FILE

For each launch and each width (TraceUnitSlot kTuInfo: group | width << 8): how many first units ran
at it, the median of their next_work -> K loop end time, and that over their K steps (read from the
plan line's K, the launch's K steps per unit when every unit is whole: pass STEPS=n to override).
"""
import os
import statistics as st
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace_summary import SLOTS, UNITS_AT, launches  # noqa: E402

steps = int(os.environ.get("STEPS", "64"))
for plan, ctas in launches(sys.argv[1]):
    t0 = min(v[0] for v in ctas if v[0])
    by = {}
    for v in ctas:
        nw, le, info = v[UNITS_AT], v[UNITS_AT + 2], v[UNITS_AT + 3]
        if nw and le:
            by.setdefault(info >> 8, []).append(((nw - t0) / 1e3, (le - nw) / 1e3, (v[SLOTS.index("done")] - t0) / 1e3))
    for w, rows in sorted(by.items()):
        loop = st.median(r[1] for r in rows)
        print(f"  width {w:3d}: {len(rows):3d} units, next_work {st.median(r[0] for r in rows):6.2f} us, "
              f"K loop {loop:6.2f} us ({loop / steps:.3f} per step of {steps}), done {st.median(r[2] for r in rows):6.2f}")
