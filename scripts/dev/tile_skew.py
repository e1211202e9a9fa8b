#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""4-rank tiles in a probe build's trace (NVFP4_TRACE_OUT of gemm's 4-split pair plan; P234b): per
tile of 4 consecutive CTAs (pair 0: ranks 0, 1; pair 1: ranks 2, 3), when each pair ends its K loop
and when it is done, in us after the launch's first entry; medians over the tiles.

  scripts/dev/tile_skew.py TRACE_FILE
"""
import statistics
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
import trace_summary as ts  # noqa: E402


def main():
    for plan, ctas in ts.launches(sys.argv[1]):
        if len(ctas) % 4:
            continue
        t0 = min(v[0] for v in ctas if v[0])
        rows = {k: [] for k in ("p0 loop end", "p1 loop end", "p0 done", "p1 done", "p0 end->done", "p1 end->done")}
        for i in range(0, len(ctas), 4):
            end = [ts.unit_stamps(v, 0)[2] for v in ctas[i:i + 4]]
            done = [v[ts.DONE] for v in ctas[i:i + 4]]
            if not all(end) or not all(done):
                continue
            for p in (0, 1):
                e = max(end[2 * p:2 * p + 2])
                d = max(done[2 * p:2 * p + 2])
                rows[f"p{p} loop end"].append((e - t0) / 1e3)
                rows[f"p{p} done"].append((d - t0) / 1e3)
                rows[f"p{p} end->done"].append((d - e) / 1e3)
        if not rows["p0 done"]:
            continue
        print(f"== {plan[:120]} ({len(rows['p0 done'])} tiles)")
        print("  " + "; ".join(f"{k} {statistics.median(v):.2f}" for k, v in rows.items()) +
              f"; last done {max(rows['p0 done'] + rows['p1 done']):.2f} us")


if __name__ == "__main__":
    main()
