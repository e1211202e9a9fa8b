#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The wgmma K loops of each kernel in a cubin's SASS, and whether two builds' loops are the same.

  scripts/dev/sass_loops.py A.cubin|A.sass                 each kernel's K loops
  scripts/dev/sass_loops.py BASE.cubin|.sass NEW.cubin|.sass  kernel by kernel: SAME, ORDER or SIZE

A K loop is a backward branch whose body holds HGMMA instructions; per loop: its SASS lines, its
HGMMA count and width, and a hash of its body with registers, predicates and immediates replaced by
placeholders (the instruction order, not the register numbering). Comparing two builds: SAME (every
loop's order hash equal), ORDER (the same sizes, another order: ptxas rescheduled the loop, which moved
the 2 x 128 group kernels by 3-5 % in docs/perf-notes.md P160b), SIZE (a loop's length changed).
A .cubin is disassembled with `cuobjdump -sass` (on PATH); a text file is read as its output.
"""
import hashlib
import re
import subprocess
import sys

ADDR = re.compile(r"/\*([0-9a-f]{4,6})\*/")
BRANCH = re.compile(r"BRA (?:`\(\.L_x_\d+\) )?0x([0-9a-f]+)")
WIDTH = re.compile(r"HGMMA\.64x(\d+)x16")


def sass_text(path):
    if path.endswith(".cubin"):
        return subprocess.run(["cuobjdump", "-sass", path], check=True, capture_output=True, text=True).stdout
    with open(path) as f:
        return f.read()


def functions(text):
    """Each function's SASS lines, from the sm_90a code only where the file holds several architectures."""
    funcs, cur, arch = {}, None, "sm_90a"
    for line in text.splitlines():
        a = re.search(r"arch = (\S+)", line)
        if a:
            arch, cur = a.group(1), None
            continue
        m = re.search(r"Function : (\S+)", line)
        if m:
            cur = m.group(1) if arch == "sm_90a" else None
            if cur is not None:
                funcs[cur] = []
        elif cur is not None:
            funcs[cur].append(line)
    return funcs


def normalized(line):
    line = re.sub(r"/\*[^*]*\*/", "", line)
    line = re.sub(r"\bU?R[0-9]+\b|\bU?P[0-9]\b", "R", line)
    line = re.sub(r"0x[0-9a-f]+|\b\d+\b", "X", line)
    return " ".join(line.split())


def k_loops(lines):
    """(lines, HGMMAs, width, order hash) of each backward branch's body that holds HGMMAs."""
    where = {}
    for i, line in enumerate(lines):
        m = ADDR.search(line)
        if m:
            where[int(m.group(1), 16)] = i
    loops = []
    for i, line in enumerate(lines):
        m = BRANCH.search(line)
        if not m:
            continue
        start = where.get(int(m.group(1), 16))
        if start is None or start >= i:
            continue
        body = [x for x in lines[start:i + 1] if ADDR.search(x)]
        widths = [WIDTH.search(x).group(1) for x in body if WIDTH.search(x)]
        if widths and len(body) < 1000:  # a K loop, not a loop around a whole tile
            digest = hashlib.sha1("\n".join(normalized(x) for x in body).encode()).hexdigest()[:10]
            loops.append((len(body), len(widths), int(widths[0]), digest))
    return sorted(loops, key=lambda t: (t[2], t[0]))


def short(name):
    m = re.search(r"ILi(\d+)ELi(\d+)ELi(\d+)EN\S*?(Single|Group)\S*?E+Lb(\d)ELb(\d)ELb(\d)E(?:Lb(\d)E)?", name)
    if not m:
        return name[:80]
    nb, c, t, sched, glob, fused, stream, bal = m.groups()
    flags = [f for f, on in (("global", glob), ("fused", fused), ("stream", stream), ("bal", bal)) if on == "1"]
    return f"{sched} NB={nb} {c}x{t}" + (" " + ",".join(flags) if flags else "")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    builds = [functions(sass_text(p)) for p in sys.argv[1:]]
    if len(builds) == 1:
        for name, lines in builds[0].items():
            loops = k_loops(lines)
            if loops:
                print(f"{short(name)}: " + ", ".join(f"n{w} {n} lines {h}" for n, _, w, h in loops))
        return
    # Kernels matched by their template arguments (short()), so that a new template parameter with
    # its default keeps them comparable.
    base, new = ({short(k): v for k, v in b.items()} for b in builds)
    for name, lines in base.items():
        a = {x[2]: x for x in k_loops(lines)}  # by wgmma width (one K loop per width)
        if not a:
            continue
        b = {x[2]: x for x in k_loops(new.get(name, []))}
        moved = [w for w in a if w in b and a[w][3] != b[w][3]]
        resized = [w for w in a if w not in b or a[w][0] != b[w][0]]
        verdict = "SIZE" if resized else "ORDER" if moved else "SAME"
        detail = "".join(f"  n{w} {a[w][0]}->{b[w][0] if w in b else '-'}{'*' if w in moved else ''}"
                         for w in sorted(a) if w in moved or w in resized)
        added = [w for w in b if w not in a]
        if added:
            detail += "  new loops: " + ", ".join(f"n{w}" for w in sorted(added))
        print(f"{verdict:5} {name}{detail}")


if __name__ == "__main__":
    main()
