#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Per-unit times of a probe build's trace (NVFP4BENCH_TRACE=ON, NVFP4_TRACE_OUT), by wgmma width.

  scripts/dev/unit_times.py TRACE_FILE

Reads the per-unit slots (gemm_wgmma.cuh kTrUnits and TraceUnitSlot, trace_summary.UNITS_AT) of the
file's last launch and prints, per width and per place in the CTA's run (first, middle, last), the
medians over units of: wait (next_work to first full, where the build stamps it:
NVFP4_TRACE_FIRST_FULL), of which held (next_work to the previous unit's held stage freed,
group_gemm's held path), K loop (first full to loop done), run (next_work to loop done), tail
(loop done to the next unit's next_work, or to the CTA's done stamp for its last unit), of which
sync (loop done to the epilogue's start) and store (epilogue start to stores issued), and the
whole unit (next_work to the next one, or to done).
"""
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trace_summary import DONE, UNIT_SLOTS, UNITS, UNITS_AT, last_launch, unit_stamps  # noqa: E402


def main():
    rows = last_launch(sys.argv[1])
    by = defaultdict(lambda: defaultdict(list))
    for v in rows:
        if len(v) < UNITS_AT + UNIT_SLOTS * UNITS:
            sys.exit("no per-unit epilogue slots in this trace (a build before TraceUnitSlot)")
        units = []
        for u in range(UNITS):
            s, f, e, gw, ep, st, hf = unit_stamps(v, u)
            if s == 0 or e == 0:
                break
            units.append((s, f, e, gw, ep, st, hf))
        for i, (s, f, e, gw, ep, st, hf) in enumerate(units):
            end = units[i + 1][0] if i + 1 < len(units) else v[DONE]
            place = "first" if i == 0 else ("last" if i + 1 == len(units) else "middle")
            w = gw >> 8
            for key in ((w, place), (w, "all")):
                d = by[key]
                if f:  # stamped only where the build asked for it (NVFP4_TRACE_FIRST_FULL)
                    d["wait"].append((f - s) / 1000)
                    d["loop"].append((e - f) / 1000)
                d["n"].append(1)
                d["run"].append((e - s) / 1000)
                d["tail"].append((end - e) / 1000)
                if hf:
                    d["held"].append((hf - s) / 1000)
                if ep and st:
                    d["sync"].append((ep - e) / 1000)
                    d["store"].append((st - ep) / 1000)
                d["unit"].append((end - s) / 1000)
    cols = ["wait", "held", "loop", "run", "tail", "sync", "store", "unit"]
    print(f"{'width':>5} {'place':>6} {'n':>4} " + " ".join(f"{c:>6}" for c in cols) + "  (us, medians)")
    for (w, place) in sorted(by):
        d = by[(w, place)]
        med = {k: statistics.median(x) for k, x in d.items() if x}
        print(f"{w:5d} {place:>6} {len(d['n']):4d} " +
              " ".join(f"{med[c]:6.2f}" if c in med else f"{'-':>6}" for c in cols))


if __name__ == "__main__":
    main()
