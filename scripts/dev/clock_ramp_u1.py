#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""P202c probe: clock_ramp.py's intervals for each CTA's first and second unit (second unit's clock64 at
UNITS_AT + 16 + n, globaltimer at UNITS_AT + 24 + n), CTAs with two units only, medians.
  clock_ramp_u1.py FILE.trace"""
import statistics as st
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from trace_summary import launches, UNITS_AT  # noqa: E402

order = [(4, "step 0"), (0, "step 6"), (1, "step 8"), (2, "step 16"), (5, "last step")]
for plan, ctas in launches(sys.argv[1]):
    sel = [v for v in ctas if v[1] and v[UNITS_AT + 40 + 4] and v[UNITS_AT + 16 + 4]]
    print(f"== {plan[:100]}: {len(sel)} CTAs with two units traced")
    for unit, (cb, tb) in (("unit 0", (40, 48)), ("unit 1", (16, 24))):
        print(f"  {unit}: interval, cycles per step (median)")
        for (a, na), (b, nb) in zip(order, order[1:]):
            steps = {("step 0", "step 6"): 6, ("step 6", "step 8"): 2, ("step 8", "step 16"): 8}.get((na, nb))
            cy = [v[UNITS_AT + cb + b] - v[UNITS_AT + cb + a] for v in sel if v[UNITS_AT + cb + b] and v[UNITS_AT + cb + a]]
            if cy and steps:
                print(f"    {na:>7s} -> {nb:9s} {st.median(cy) / steps:7.0f}")
            elif cy:
                print(f"    {na:>7s} -> {nb:9s} {st.median(cy):9.0f} cycles in all")
