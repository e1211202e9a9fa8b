#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Per-unit times of a probe build's trace (NVFP4BENCH_TRACE=ON, NVFP4_TRACE_OUT), by wgmma width.

  scripts/dev/unit_times.py TRACE_FILE

Reads the per-unit slots (gemm_wgmma.cuh kTrUnits, trace_summary.UNITS_AT: per unit of a CTA,
next_work returned, first stage full, K loop done, and group | width << 8) of the file's last
launch and prints, per width
and per place in the CTA's run (first, middle, last), the medians over units of: wait (next_work to
first full), K loop (first full to loop done), tail (loop done to the next unit's next_work, or to
the CTA's done stamp for its last unit) and the whole unit (next_work to the next one, or to done).
"""
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace_summary import DONE, UNITS, UNITS_AT, launches  # noqa: E402


def main():
    rows = None
    for _, rows in launches(sys.argv[1]):
        pass  # the file's last launch
    by = defaultdict(lambda: defaultdict(list))
    for v in rows:
        if len(v) < UNITS_AT + 4 * UNITS:
            sys.exit("no per-unit slots in this trace (a build before kTrUnits)")
        units = []
        for u in range(UNITS):
            s, f, e, gw = v[UNITS_AT + 4 * u: UNITS_AT + 4 * u + 4]
            if s == 0 or f == 0 or e == 0:
                break
            units.append((s, f, e, gw))
        for i, (s, f, e, gw) in enumerate(units):
            end = units[i + 1][0] if i + 1 < len(units) else v[DONE]
            place = "first" if i == 0 else ("last" if i + 1 == len(units) else "middle")
            w = gw >> 8
            for key in ((w, place), (w, "all")):
                d = by[key]
                d["wait"].append((f - s) / 1000)
                d["loop"].append((e - f) / 1000)
                d["tail"].append((end - e) / 1000)
                d["unit"].append((end - s) / 1000)
    print(f"{'width':>5} {'place':>6} {'n':>4} {'wait':>6} {'loop':>6} {'tail':>6} {'unit':>6}  (us, medians)")
    for (w, place) in sorted(by):
        d = by[(w, place)]
        med = {k: statistics.median(x) for k, x in d.items()}
        print(f"{w:5d} {place:>6} {len(d['loop']):4d} {med['wait']:6.2f} {med['loop']:6.2f} {med['tail']:6.2f} {med['unit']:6.2f}")


if __name__ == "__main__":
    main()
