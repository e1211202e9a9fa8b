#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Per wgmma width, the first units' times from a probe build's stamps (trace_summary.py's file).

  STEPS=n scripts/dev/unit_widths.py TRACE_FILE

For each launch and each width (TraceUnitSlot kTuInfo: group | width << 8): how many first units ran
at it, the medians of their next_work, of next_work -> K loop end (the first data's wait included)
and that over the unit's K steps (STEPS, default 64: the caller knows the shape), and of the CTA's
done stamp, in us from the launch's first entry.
"""
import os
import statistics as st
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace_summary import DONE, launches, unit_stamps  # noqa: E402

steps = int(os.environ.get("STEPS", "64"))
for plan, ctas in launches(sys.argv[1]):
    t0 = min(v[0] for v in ctas if v[0])
    by = {}
    for v in ctas:
        nw, _, le, info = unit_stamps(v, 0)[:4]
        if nw and le:
            by.setdefault(info >> 8, []).append(((nw - t0) / 1e3, (le - nw) / 1e3, (v[DONE] - t0) / 1e3))
    for w, rows in sorted(by.items()):
        loop = st.median(r[1] for r in rows)
        print(f"  width {w:3d}: {len(rows):3d} units, next_work {st.median(r[0] for r in rows):6.2f} us, "
              f"K loop {loop:6.2f} us ({loop / steps:.3f} per step of {steps}), done {st.median(r[2] for r in rows):6.2f}")
