#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A probe build's CTAs grouped by the widths of their units, in order (NVFP4BENCH_TRACE=ON).

  scripts/dev/cta_patterns.py TRACE_FILE

For the file's last launch: per pattern of unit widths, how many CTAs run it and their done stamps
(min, median, max, us from the first entry), latest pattern first; then the latest 6 CTAs with each
unit's loop end.
"""
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace_summary import DONE, UNITS, last_launch, unit_stamps  # noqa: E402


def main():
    rows = last_launch(sys.argv[1])
    t0 = min(v[0] for v in rows if v[0])
    pats = defaultdict(list)
    ctas = []
    for b, v in enumerate(rows):
        if not v[DONE]:  # a CTA with no unit (a decoder CTA) stores no output
            continue
        units = []
        for u in range(UNITS):
            s, f, e, gw = unit_stamps(v, u)[:4]
            if not s or not e:
                break
            units.append((gw >> 8, (e - t0) / 1000))
        done = (v[DONE] - t0) / 1000
        pats[tuple(w for w, _ in units)].append(done)
        ctas.append((done, b, units))
    for p, ends in sorted(pats.items(), key=lambda kv: -max(kv[1])):
        print(f"  {' '.join(map(str, p)):22s} x{len(ends):3d}  done {min(ends):6.2f} {statistics.median(ends):6.2f} {max(ends):6.2f}")
    for done, b, units in sorted(ctas, reverse=True)[:6]:
        print(f"  CTA {b:3d} done {done:6.2f}: " + " | ".join(f"w{w} end {e:.2f}" for w, e in units))


if __name__ == "__main__":
    main()
