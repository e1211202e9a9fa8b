#!/usr/bin/env python3
"""Timer fidelity on the GPU machine: the `cupti` timer against Nsight Compute.

    scripts/fidelity.py OUT_DIR [--bin build/nvfp4bench] [--variants LIST] [--shapes problem:shape ...]

For every (problem, shape, variant) it
  1. times the case with `nvfp4bench --timer cupti` (cold L2, median of the samples),
  2. runs `ncu --clock-control none --metrics gpu__time_duration.sum` over `nvfp4bench --profile`
     with NVFP4_PROFILE_REPEAT=5, which launches the variant 5 times inside the NVTX range
     <problem>/<shape>/<variant>; sums gpu__time_duration over each launch's kernels and takes the
     median launch (with the default --cache-control all ncu flushes caches before each kernel, so
     both sides are cold-L2 times),
and writes OUT_DIR/fidelity.md and OUT_DIR/fidelity.json with the ratio cupti / ncu.
Default cases: the gpu-mode gemv and gemm benchmark shapes, every variant but `naive`.
"""
import argparse
import csv
import io
import json
import os
import re
import subprocess
import sys

REPEAT = 5  # launches inside the NVTX range (NVFP4_PROFILE_REPEAT); ncu's time is their median
DEFAULT_SHAPES = ["gemv:7168x16384x1", "gemv:4096x7168x8", "gemv:7168x2048x4",
                  "gemm:128x7168x16384", "gemm:128x4096x7168", "gemm:128x7168x2048"]


def ncu_escape(name):
    return re.sub(r"([@,\[\]/*+\\])", r"\\\1", name)


def cupti_times(binary, problem, shape, variants, out_dir, l2):
    path = os.path.join(out_dir, f"cupti_{l2}_{problem}_{shape.replace(',', '_')}.json")
    cmd = [binary, "--problem", problem, "--shape", shape, "--variant", ",".join(variants), "--timer", "cupti",
           "--l2", l2, "--no-floor", "--json", path]
    subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL)
    rep = json.load(open(path))
    return {r["variant"]: (r["timing"] or {}).get("median_us") for r in rep["results"]}


def ncu_time(binary, ncu, problem, shape, variant, cache):
    rng = f"{problem}/{shape}/{variant}"
    cmd = [ncu, "--clock-control", "none", "--cache-control", cache,
           "--metrics", "gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second",
           "--csv", "--page", "raw",
           "--nvtx", "--nvtx-include", ncu_escape(rng) + "/",
           binary, "--problem", problem, "--shape", shape, "--variant", variant, "--profile"]
    env = dict(os.environ, NVFP4_PROFILE_REPEAT=str(REPEAT))
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    lines = [l for l in p.stdout.splitlines() if l.startswith('"')]
    if len(lines) < 2:
        return None, 0, p.stdout[-400:] + p.stderr[-400:]
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    data = [r for r in rows if r.get("gpu__time_duration.sum", "").replace(".", "", 1).replace(",", "").isdigit()]
    unit = rows[0].get("gpu__time_duration.sum", "")  # first row after the header holds the units
    scale = {"nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3}.get(unit, 1e-3)
    times = [float(r["gpu__time_duration.sum"].replace(",", "")) * scale for r in data]
    if not times or len(times) % REPEAT:
        return None, len(times), f"{len(times)} kernels for {REPEAT} launches"
    per = len(times) // REPEAT  # kernels per launch
    launches = sorted(sum(times[i * per:(i + 1) * per]) for i in range(REPEAT))
    clocks = [r.get("sm__cycles_elapsed.avg.per_second", "") for r in data[:per]]
    return launches[REPEAT // 2], per, ("launches " + "/".join(f"{t:.2f}" for t in launches) + " sm clock " +
                                        "/".join(clocks) + " " + rows[0].get("sm__cycles_elapsed.avg.per_second", ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--bin", default="build/nvfp4bench")
    ap.add_argument("--ncu", default=os.environ.get("NCU", "ncu"))
    ap.add_argument("--variants", default="vectorized,tensor-core,persistent,cublaslt")
    ap.add_argument("--shapes", nargs="*", default=DEFAULT_SHAPES)
    ap.add_argument("--l2", default="cold", help="nvfp4bench --l2 for the cupti side")
    ap.add_argument("--ncu-cache", default="all", help="ncu --cache-control (all flushes before each kernel)")
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    rows = []
    for ps in a.shapes:
        problem, shape = ps.split(":", 1)
        cupti = cupti_times(a.bin, problem, shape, a.variants.split(","), a.out_dir, a.l2)
        for variant, cu in cupti.items():
            if cu is None:
                continue
            nc, kernels, err = ncu_time(a.bin, a.ncu, problem, shape, variant, a.ncu_cache)
            ratio = cu / nc if nc else None
            rows.append({"problem": problem, "shape": shape, "variant": variant, "cupti_us": cu, "ncu_us": nc,
                         "kernels": kernels, "ratio": ratio, "error": err})
            print(f"{problem:5} {shape:16} {variant:12} cupti {cu:9.3f}  ncu {nc if nc else float('nan'):9.3f}  "
                  f"ratio {ratio if ratio else float('nan'):.4f}  kernels {kernels} {err[:200]}", flush=True)
    ok = [r for r in rows if r["ratio"] is not None]
    within = [r for r in ok if abs(r["ratio"] - 1) <= 0.03]
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                         text=True).stdout.strip().splitlines()[0]
    md = [f"# Timer fidelity on {gpu}: nvfp4bench `--timer cupti` vs Nsight Compute `gpu__time_duration.sum`", "",
          f"ncu `--clock-control none --cache-control {a.ncu_cache}`, one launch (`--profile`); "
          f"nvfp4bench `--timer cupti --l2 {a.l2}`, median of its samples. "
          f"{len(within)} of {len(ok)} cases within 3%.", "",
          "| problem | shape | variant | kernels | cupti us | ncu us | cupti / ncu |", "| --- | --- | --- | ---: | ---: | ---: | ---: |"]
    for r in rows:
        md.append(f"| {r['problem']} | {r['shape']} | {r['variant']} | {r['kernels']} | {r['cupti_us']:.3f} | "
                  + (f"{r['ncu_us']:.3f} | {r['ratio']:.4f} |" if r["ratio"] else "- | - |"))
    tag = f"{a.l2}-vs-ncu-{a.ncu_cache}"
    open(os.path.join(a.out_dir, f"fidelity-{tag}.md"), "w").write("\n".join(md) + "\n")
    json.dump({"gpu": gpu, "l2": a.l2, "ncu_cache_control": a.ncu_cache, "rows": rows, "within_3pct": len(within),
               "cases": len(ok)}, open(os.path.join(a.out_dir, f"fidelity-{tag}.json"), "w"), indent=2)
    print(f"{len(within)} of {len(ok)} within 3%")
    return 0 if ok and len(within) == len(ok) else 1


if __name__ == "__main__":
    sys.exit(main())
