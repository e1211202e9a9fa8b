#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""P183 probe (docs/perf-notes.md): the decoder-CTA plan's start, from a trace build with the probe's
extra stamps (branch p183-trace-probe): per launch, medians / p90 / max (us from the first entry) of
the main CTAs' start by wgmma width, and of the decoder CTAs' warp 0.
  p183_summary.py FILE.trace"""
import statistics
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from trace_summary import launches, UNITS_AT  # noqa: E402

MAIN = [("consumer start", 1), ("fetch: next_work", UNITS_AT + 7), ("fetch: source params", UNITS_AT + 16 + 7),
        ("fetch: 1st chunk landed", UNITS_AT + 24 + 7), ("local loads issued", 4),
        ("local stored", 2), ("local synced", 3), ("unit next_work", UNITS_AT), ("weights: first copy", 7),
        ("tok warp: stream wait in", UNITS_AT + 8 + 7), ("tok warp: stream wait out", 5), ("tok warp: first copy", 6),
        ("first loop end", UNITS_AT + 2), ("done", 9)]
# P185 (scripts/dev/p185_trace.patch): the first unit's token / weight copies of its K steps 4 .. 48
# issued, and consumer 0 past the full barrier of steps 4, 8, 16, 32.
STEPS = [
    (f"tok copy step {k} issued", UNITS_AT + 16 + n) for n, k in enumerate([4, 8, 12, 16, 24, 32, 48])] + [
    (f"w copy step {k} issued", UNITS_AT + 24 + n) for n, k in enumerate([4, 8, 12, 16, 24, 32, 48])] + [
    (f"consumer step {k} full", UNITS_AT + 32 + n) for n, k in enumerate([6, 8, 16, 32])] + [
    ("P187: consumer step 6 full", UNITS_AT + 40), ("P187/P196: warp 3's part stored", UNITS_AT + 41),
    ("P196: warp 3's copies landed", UNITS_AT + 42), ("P196: warp 3's unit known", UNITS_AT + 43),
    ("P196: token warp past warp 3's barrier", UNITS_AT + 44), ("P196c: token warp's part stored", UNITS_AT + 45)]
DEC = [("entry", 0), ("stream entered", 10), ("item 0 placed / P186: warp 11's item counted", 11), ("item 0 1st chunk in / P186: warp 11's item stored", 12), ("item 1 placed", 8), ("item 0 decoded", 13), ("item 0 counted", 14), ("item 2 placed", 6), ("item 1 decoded", 9), ("warp 0 done", 15)]


def show(name, ctas, t0, k):
    xs = sorted((v[k] - t0) / 1000 for v in ctas if v[k])
    if xs:
        p90 = xs[min(len(xs) - 1, int(0.9 * len(xs)))]
        print(f"    {name:26s} median {statistics.median(xs):6.2f}  p90 {p90:6.2f}  max {xs[-1]:6.2f}  ({len(xs)})")


for plan, ctas in launches(sys.argv[1]):
    t0 = min(v[0] for v in ctas if v[0])
    print(f"== {plan[:110]} ({len(ctas)} CTAs)")
    main = [v for v in ctas if v[1]]
    for width in sorted({(v[UNITS_AT + 3] >> 8) & 0xFFFF for v in main}):
        sel = [v for v in main if (v[UNITS_AT + 3] >> 8) & 0xFFFF == width]
        groups = sorted({v[UNITS_AT + 3] & 0xFF for v in sel})
        print(f"  main CTAs, {width} wide, groups {groups}:")
        for name, k in MAIN + STEPS:
            show(name, sel, t0, k)
    dec = [v for v in ctas if not v[1] and v[13]]
    if dec:
        print("  decoder CTAs (thread 0):")
        for name, k in DEC:
            show(name, dec, t0, k)
