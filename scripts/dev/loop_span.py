#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Per traced launch (NVFP4_TRACE_OUT; P179): each main CTA's first unit from its consumers' next_work
to its K loop's end, medians and max over the CTAs, and the launch's last loop end and last stamp.

  scripts/dev/loop_span.py TRACE_FILE
"""
import statistics
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
import trace_summary as ts  # noqa: E402

for plan, ctas in ts.launches(sys.argv[1]):
    t0 = min(v[0] for v in ctas if v[0])
    spans, starts, ends = [], [], []
    for v in ctas:
        u = ts.unit_stamps(v, 0)
        if u[0] and u[2]:
            spans.append((u[2] - u[0]) / 1e3)
            starts.append((u[0] - t0) / 1e3)
            ends.append((u[2] - t0) / 1e3)
    if spans:
        done = max(v[ts.DONE] for v in ctas if v[ts.DONE])
        print(f"  {len(spans)} CTAs: unit start median {statistics.median(starts):.2f}; next_work -> loop end median "
              f"{statistics.median(spans):.2f} max {max(spans):.2f} us; last loop end {max(ends):.2f}, last stamp "
              f"{(done - t0) / 1e3:.2f} us")
