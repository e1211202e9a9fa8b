#!/usr/bin/env python3
"""Re-checks a case written by `nvfp4bench --dump DIR` independently, in NumPy.

    scripts/check_dump.py DIR/<case>/            (the folder holding index.json)

Decodes A and B (e2m1, low nibble = lower k) and their e4m3 scales with literal tables, checks
that the blocked scale tensor is the gpu-mode permutation of the row-major one, computes the
product in float64 (dual_gemm: silu(x1) * x2), rounds to float16 and compares the dumped reference
and every dumped variant output with |out - ref| <= 1e-3 + 1e-3 |ref|. Exit 0 when all agree.
"""
import json
import sys
from pathlib import Path

import numpy as np

E2M1 = np.array([0, .5, 1, 1.5, 2, 3, 4, 6, -0., -.5, -1, -1.5, -2, -3, -4, -6], dtype=np.float64)


def e4m3(codes):
    c = codes.astype(np.int64)
    s = np.where(c & 0x80, -1.0, 1.0)
    e, m = (c >> 3) & 0xF, c & 7
    v = np.where(e == 0, m / 8.0 * 2.0 ** -6, (1 + m / 8.0) * 2.0 ** (e - 7.0))
    return np.where((c & 0x7F) == 0x7F, np.nan, s * v)


def decode(data, sf):
    lo, hi = E2M1[data & 0xF], E2M1[data >> 4]
    vals = np.stack([lo, hi], axis=-1).reshape(data.shape[0], data.shape[1], -1)  # [l][rows][k]
    return vals * np.repeat(e4m3(sf), 16, axis=-1)


def blocked_from_rowmajor(sf, blocked_bytes):
    l, rows, sfk = sf.shape
    rb, cb = -(-rows // 128), -(-sfk // 4)
    out = np.full((l, rb * cb * 512), -1, dtype=np.int64)
    i, j = np.meshgrid(np.arange(rows), np.arange(sfk), indexing="ij")
    off = (i // 128) * (cb * 512) + (j // 4) * 512 + (i % 32) * 16 + ((i % 128) // 32) * 4 + (j % 4)
    for b in range(l):
        out[b, off.ravel()] = sf[b].ravel()
    return out, blocked_bytes


def main():
    d = Path(sys.argv[1])
    idx = json.loads((d / "index.json").read_text())
    arr = {k: np.load(d / v["file"]) for k, v in idx["arrays"].items()}
    problem = idx["problem"]
    groups = sorted({k.split("_")[0] for k in arr if k.startswith("g") and k[1].isdigit()}) or [""]
    bad = 0
    for g in groups:
        pre = g + "_" if g else ""
        ops = {}
        for name in ["a", "b", "b2"]:
            if pre + name not in arr:
                continue
            data, sf, blk = arr[pre + name], arr[pre + "sf" + name], arr[pre + "sf" + name + "_blocked"]
            want, _ = blocked_from_rowmajor(sf, blk)
            mask = want >= 0
            if not np.array_equal(want[mask], blk.astype(np.int64)[mask]):
                print(f"{pre}{name}: blocked scales are not the permutation of the row-major ones")
                bad += 1
            ops[name] = decode(data, sf)
        a, b = ops["a"], ops["b"]
        if problem == "gemv":
            b = b[:, :1, :]
        x = np.einsum("lmk,lnk->lmn", a, b)
        if problem == "dual_gemm":
            x2 = np.einsum("lmk,lnk->lmn", a, ops["b2"])
            x = x / (1 + np.exp(-x)) * x2
        ref64 = x.astype(np.float16)
        for k in sorted(arr):
            if not (k.startswith(pre + "c_") or k == pre + "ref"):
                continue
            out = arr[k].astype(np.float64)
            r = ref64.astype(np.float64)
            fin = np.isfinite(out) & np.isfinite(r)
            ok = np.where(fin, np.abs(out - r) <= 1e-3 + 1e-3 * np.abs(r), (np.isnan(out) & np.isnan(r)) | (out == r))
            n = int((~ok).sum())
            print(f"{k}: {n} of {ok.size} elements differ from the NumPy float64 reference")
            bad += n > 0
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
