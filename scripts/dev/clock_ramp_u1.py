#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""P202c probe: clock_ramp.py's intervals, in cycles per K step, for each CTA's first and second unit
(second unit's clock64 at UNITS_AT + 16 + n, globaltimer at UNITS_AT + 24 + n), CTAs with both units
stamped, medians.   clock_ramp_u1.py FILE.trace"""
import statistics as st
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from clock_ramp import intervals  # noqa: E402
from trace_summary import launches, UNITS_AT  # noqa: E402

POINTS = [(4, "step 0"), (0, "step 6"), (1, "step 8"), (2, "step 16"), (5, "last step")]
STEPS = {("step 0", "step 6"): 6, ("step 6", "step 8"): 2, ("step 8", "step 16"): 8}

for plan, ctas in launches(sys.argv[1]):
    sel = [v for v in ctas if v[1] and v[UNITS_AT + 40 + 4] and v[UNITS_AT + 16 + 4]]
    print(f"== {plan[:100]}: {len(sel)} CTAs with two units traced")
    for unit, (clock_at, time_at) in (("unit 0", (40, 48)), ("unit 1", (16, 24))):
        print(f"  {unit}: interval, cycles per step (median)")
        for na, nb, pairs in intervals(sel, UNITS_AT + clock_at, UNITS_AT + time_at, POINTS):
            if not pairs:
                continue
            cy = st.median(p[0] for p in pairs)
            steps = STEPS.get((na, nb))
            print(f"    {na:>7s} -> {nb:9s} " + (f"{cy / steps:7.0f}" if steps else f"{cy:9.0f} cycles in all"))
