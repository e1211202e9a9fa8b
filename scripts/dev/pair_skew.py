#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Split-K pairs in a probe build's trace (NVFP4_TRACE_OUT of a 2-rank or paired launch; P177):
how far apart the two ranks of a cluster (CTAs 2i, 2i + 1) end their K loops, and how long each
rank takes from there to its last stamp ("done"), for the earlier and the later rank.

  scripts/dev/pair_skew.py TRACE_FILE
"""
import statistics
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
import trace_summary as ts  # noqa: E402


def q(xs, f):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(f * len(xs)))]


def main():
    for plan, ctas in ts.launches(sys.argv[1]):
        t0 = min(v[0] for v in ctas if v[0])
        end = [ts.unit_stamps(v, 0)[2] for v in ctas]
        done = [v[ts.DONE] for v in ctas]
        skew, early, late = [], [], []
        for i in range(0, len(ctas) - 1, 2):
            a, b = end[i], end[i + 1]
            if not (a and b and done[i] and done[i + 1]):
                continue
            skew.append(abs(a - b) / 1e3)
            e, l = (i, i + 1) if a <= b else (i + 1, i)
            early.append((done[e] - end[l]) / 1e3)  # the earlier rank, from the later rank's loop end
            late.append((done[l] - end[l]) / 1e3)
        if not skew:
            continue
        print(f"== {plan[:120]} ({len(skew)} pairs)")
        print(f"  loop-end skew within a pair: median {statistics.median(skew):.2f}  p90 {q(skew, 0.9):.2f}  max {max(skew):.2f} us")
        print(f"  later rank's loop end -> earlier rank done: median {statistics.median(early):.2f}  max {max(early):.2f} us")
        print(f"  later rank's loop end -> later rank done:   median {statistics.median(late):.2f}  max {max(late):.2f} us")
        print(f"  last loop end {(max(end) - t0) / 1e3:.2f}, last done {(max(done) - t0) / 1e3:.2f} us after the first entry")


if __name__ == "__main__":
    main()
