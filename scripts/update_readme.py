#!/usr/bin/env python3
"""Regenerates the README's variants table from a committed nvfp4bench JSON report.

    scripts/update_readme.py results/<report>.json [README.md]

The table sits between the markers <!-- variants-table:begin --> and <!-- variants-table:end -->.
It is never typed by hand: every figure comes from the report, which names the GPU.
"""
import json
import math
import sys
from pathlib import Path

BEGIN, END = "<!-- variants-table:begin -->", "<!-- variants-table:end -->"
ORDER = ["naive", "vectorized", "tensor-core", "persistent", "cublaslt"]


def fmt(x, spec):
    return "" if x is None else format(x, spec)


def short_shape(problem, shape):
    """group_gemm shapes with a shared N and K read better as G, the Ms, N, K."""
    if problem != "group_gemm":
        return shape
    dims = [g.split("x") for g in shape.split(",")]
    if len(dims) > 2 and len({(d[1], d[2]) for d in dims}) == 1:
        return f"G={len(dims)}, M=[{','.join(d[0] for d in dims)}], N={dims[0][1]}, K={dims[0][2]}"
    return shape


def table(report_path: Path) -> str:
    rep = json.loads(report_path.read_text())
    if rep.get("schema") != "nvfp4bench.report/1":
        sys.exit(f"{report_path}: schema {rep.get('schema')!r} is not nvfp4bench.report/1")
    dev = rep.get("device") or {}
    timing = (rep.get("settings") or {}).get("timing") or {}
    timer = timing.get("timer", "events")
    why = f" ({timing['timer_reason']})" if timing.get("timer_reason") else ""
    l2 = timing.get("l2", "cold")
    lines = [
        f"Measured by nvfp4bench {rep['tool']['version']} ({rep['tool']['git_sha']}) on **{dev.get('name', '?')}** "
        f"(sm_{dev.get('compute_capability', '?').replace('.', '')}, driver {dev.get('driver_version', '?')}, "
        f"CUDA runtime {dev.get('cuda_runtime_version', '?')}), {rep['timestamp']}, report "
        f"[`{report_path.as_posix()}`]({report_path.as_posix()}). Command: `{rep['command_line']}`. "
        f"Median of {l2}-L2 samples, `{timer}` timer{why}; `x cuBLASLt` is the cublaslt variant's median over this "
        f"one's; `x floor` is this median over the streaming floor's, timed in the same run.",
        "",
        "| problem | shape | variant | status | median us | TFLOP/s | GB/s | % SOL | x cuBLASLt | floor us | x floor | B200 target us |",
        "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    per_variant = {}
    for r in rep["results"]:
        t, m = r.get("timing") or {}, r.get("metrics") or {}
        lines.append(
            f"| {r['problem']} | {short_shape(r['problem'], r['shape'])} | {r['variant']} | {r['status']} | "
            f"{fmt(t.get('median_us'), '.2f')} | "
            f"{fmt(m.get('tflops'), '.1f')} | {fmt(m.get('gbps'), '.0f')} | {fmt(m.get('pct_sol'), '.1f')} | "
            f"{fmt(m.get('speedup_vs_cublaslt'), '.2f')} | {fmt(m.get('floor_us'), '.2f')} | "
            f"{fmt(m.get('vs_floor'), '.2f')} | {fmt(m.get('b200_target_us'), '.3f')} |")
        if t.get("median_us"):
            per_variant.setdefault((r["problem"], r["variant"]), []).append(t["median_us"])
    lines += ["", "Geometric mean of the medians per problem and variant (shapes where the variant ran):", "",
              "| problem | variant | shapes | geomean us |", "| --- | --- | ---: | ---: |"]
    for (p, v), ts in sorted(per_variant.items(), key=lambda kv: (kv[0][0], ORDER.index(kv[0][1]) if kv[0][1] in ORDER else 99)):
        g = math.exp(sum(math.log(x) for x in ts) / len(ts))
        lines.append(f"| {p} | {v} | {len(ts)} | {g:.2f} |")
    plans = [r for r in rep["results"] if r.get("plan")]
    if plans:
        lines += ["", "How the variants that choose a launch per shape launched each case (the result's `plan`: "
                  "CTA shape, tiles, K splits and CTAs, from the cost model described above):", "",
                  "| problem | shape | variant | plan |", "| --- | --- | --- | --- |"]
        for r in plans:
            lines.append(f"| {r['problem']} | {short_shape(r['problem'], r['shape'])} | {r['variant']} | {r['plan']} |")
    return "\n".join(lines)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    report = Path(sys.argv[1])
    readme = Path(sys.argv[2] if len(sys.argv) > 2 else "README.md")
    text = readme.read_text()
    if BEGIN not in text or END not in text:
        sys.exit(f"{readme}: markers {BEGIN} / {END} not found")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    readme.write_text(head + BEGIN + "\n" + table(report) + "\n" + END + tail)


if __name__ == "__main__":
    main()
