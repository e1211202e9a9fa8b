#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A/B timing of nvfp4bench builds on the GPU machine, alternated in one process tree.

  scripts/dev/ab.py --rounds 3 --out DIR --build base=.carry/base/nvfp4bench \
      --build new=.carry/new/nvfp4bench --build new-e0=.carry/new/nvfp4bench:NVFP4_PERSISTENT_EARLY_STEPS=0 \
      -- --config configs/gpumode/group_gemm.json --role benchmark --variant persistent --timer cupti

Each round runs every build once (in the order given) with the nvfp4bench arguments after `--`,
writing DIR/<build>_r<round>.json; then prints, per case and variant, each build's median (us) per
round and the ratio of each build's best median to the first build's best. A build is NAME=BIN,
optionally followed by :VAR=VALUE,... set in its environment. Exit code 1 if any run failed or
did not verify.
"""
import argparse
import json
import os
import re
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", required=True)
    ap.add_argument("--build", action="append", required=True)
    ap.add_argument("args", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    args = a.args[1:] if a.args and a.args[0] == "--" else a.args
    builds = []
    for b in a.build:
        name, rest = b.split("=", 1)
        binary, _, envs = rest.partition(":")
        env = dict(os.environ)
        for kv in filter(None, re.split(r",(?=[A-Za-z_][A-Za-z0-9_]*=)", envs)):  # a value may hold commas
            k, v = kv.split("=", 1)
            env[k] = v
        builds.append((name, binary, env))
    os.makedirs(a.out, exist_ok=True)
    medians = {}  # (problem, shape, variant) -> build -> [us per round]
    failed = False
    for r in range(a.rounds):
        for name, binary, env in builds:
            path = os.path.join(a.out, f"{name}_r{r}.json")
            p = subprocess.run([binary, *args, "--quiet", "--json", path], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
            if p.returncode != 0:
                failed = True
                print(f"{name} round {r}: exit {p.returncode}: {p.stderr.strip()[-400:]}", file=sys.stderr)
            if not os.path.exists(path):
                continue
            for res in json.load(open(path))["results"]:
                key = (res["problem"], res["shape"], res["variant"])
                if res["status"] != "PASS":
                    failed = True
                    print(f"{name} round {r}: {key} {res['status']} {res.get('reason', '')}", file=sys.stderr)
                us = (res.get("timing") or {}).get("median_us")
                if us is not None:
                    medians.setdefault(key, {}).setdefault(name, []).append(us)
    names = [b[0] for b in builds]
    print(f"{'case':<48} " + "  ".join(f"{n:>{8 * a.rounds}}" for n in names) + "  best/best(" + names[0] + ")")
    for (prob, shape, var), per in medians.items():
        cells = []
        for n in names:
            v = per.get(n, [])
            cells.append(" ".join(f"{x:7.2f}" for x in v).rjust(8 * a.rounds))
        base = min(per.get(names[0], [float("nan")]))
        ratios = " ".join(f"{min(per[n]) / base:.3f}" for n in names[1:] if n in per)
        print(f"{(prob + ' ' + shape)[:40]:<40} {var[:7]:<7} " + "  ".join(cells) + "  " + ratios)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
