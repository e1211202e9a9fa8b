#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""P200b probe (docs/perf-notes.md): per K-step interval of each main CTA's first unit, the SM clock's
cycles against the global timer's ns (slots UNITS_AT + 40 + n: clock64, UNITS_AT + 48 + n: globaltimer,
n = 4 step 0, 0 step 6, 1 step 8, 2 step 16, 3 step 32, 5 last step), medians over the CTAs of each
wgmma width; then P200c's counts (only meaningful on a build with NVFP4_TRACE_WAITS=1).
  clock_ramp.py FILE.trace"""
import statistics as st
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from trace_summary import launches, UNITS_AT  # noqa: E402

# (slot n, name) in the order the stamps are taken.
POINTS = [(4, "step 0"), (0, "step 6"), (1, "step 8"), (2, "step 16"), (3, "step 32"), (5, "last step")]


def intervals(sel, clock_at, time_at, points=POINTS):
    """Per pair of consecutive points: (name a, name b, [(cycles, ns)] of the CTAs that have both)."""
    out = []
    for (a, na), (b, nb) in zip(points, points[1:]):
        pairs = [(v[clock_at + b] - v[clock_at + a], v[time_at + b] - v[time_at + a]) for v in sel
                 if v[clock_at + a] and v[clock_at + b] and v[time_at + a] and v[time_at + b]]
        out.append((na, nb, pairs))
    return out


def main():
    for _, ctas in launches(sys.argv[1]):
        by = {}
        for v in ctas:
            if v[1] and v[UNITS_AT + 40 + 4]:
                by.setdefault((v[UNITS_AT + 3] >> 8) & 0xFFFF, []).append(v)
        for width, sel in sorted(by.items()):
            print(f"== {len(sel)} units {width} wide: interval, ns, cycles, GHz (medians)")
            # the points stamped in this build or launch (NVFP4_TRACE_STEP_MASK may leave some out, P203f)
            present = [p for p in POINTS if sum(1 for v in sel if v[UNITS_AT + 40 + p[0]]) > len(sel) // 2]
            for na, nb, pairs in intervals(sel, UNITS_AT + 40, UNITS_AT + 48, present):
                if pairs:
                    ns = st.median(p[1] for p in pairs)
                    cy = st.median(p[0] for p in pairs)
                    ghz = st.median(p[0] / p[1] for p in pairs if p[1] > 0)
                    print(f"  {na:>9s} -> {nb:9s} {ns:8.0f} ns {cy:9.0f} cycles  {ghz:.3f} GHz")
        # P200c: per width, how many first units found step k's stage not full (k < 64), and the cycles waited.
        for width, sel in sorted(by.items()):
            masks = [v[UNITS_AT + 56] for v in sel]
            waits = sorted(v[UNITS_AT + 57] for v in sel)
            counts = [sum((m >> k) & 1 for m in masks) for k in range(64)]
            print(f"== {width} wide: units that waited on step k's stage (k = 0..63), of {len(sel)}; cycles waited, "
                  f"median {st.median(waits):.0f} max {waits[-1]}")
            print("  " + " ".join(f"{k}:{c}" for k, c in enumerate(counts) if c))


if __name__ == "__main__":
    main()
