#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P174 (docs/perf-notes.md): gemm's decoder-CTA kernel decodes its local token steps in a rolled
# loop. main's f5dd0b3 build in .carry/base, the branch's in .carry/new (nvfp4bench, gpu_tests).
#   scripts/dev/p174_session.sh OUT [verify|tests|ab|pcsamp ...]
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    verify) verify_token_paths verify_gemms "$NEW" "$OUT" ;;
    tests) gpu_tests_run "$OUT" 'Variants.Gemm:Variants.TokenModes:Variants.StreamTokensRelaunch' 300 ;;
    ab) ROUNDS=${ROUNDS:-3} ab_problems "$OUT" ab gemm base=$BASE new=$NEW ;;
    pcsamp)
      for b in base new; do
        timeout 120 ncu --clock-control none --cache-control none -k regex:wgmma_gemm --launch-count 1 \
          --section SourceCounters --warp-sampling-interval 0 --import-source no -o "$OUT/rep_$b" \
          .carry/$b/nvfp4bench --problem gemm --shape 128x7168x2048 --variant persistent --verify-only --quiet >/dev/null 2>&1
        ncu -i "$OUT/rep_$b.ncu-rep" --page source --csv --print-source sass >"$OUT/src_$b.csv" 2>/dev/null
        echo "== $b"; python3 /dev/stdin "$OUT/src_$b.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h = rows[1]; b = [r for r in rows[2:] if len(r) == len(h)]
ia, ino, iex = h.index('Warp Stall Sampling (All Samples)'), h.index('stall_no_inst'), h.index('Instructions Executed')
f = lambda x: float(x.replace(',', '') or 0)
tot = sum(f(r[ia]) for r in b); ni = sum(f(r[ino]) for r in b)
loop = max((f(r[iex]) for r in b))
ls = sum(f(r[ia]) for r in b if f(r[iex]) == loop)
print(f"samples {tot:.0f}, no_inst {ni:.0f} ({ni / tot:.1%}), hottest loop {ls:.0f} samples")
PY
      done
      tar cJf "$OUT/src.tar.xz" -C "$OUT" src_base.csv src_new.csv && rm -f "$OUT"/src_*.csv "$OUT"/rep_*.ncu-rep ;;
  esac
}
run_steps "verify tests ab pcsamp"
