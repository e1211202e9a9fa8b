#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P173 probe (docs/perf-notes.md): where the `persistent` main kernel's warps wait, instruction by
# instruction (Nsight Compute PC sampling, source page as CSV), on the three cases short of their
# bars; in particular how many samples wait on an instruction fetch (no_instruction) and where.
# main's build in .carry/base.   scripts/dev/p173_probe.sh OUT [pcsamp ...]
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
pcsamp_case() {  # pcsamp_case NAME PROBLEM SHAPE [CACHE_CONTROL]
  timeout 200 ncu --clock-control none --cache-control ${4:-all} -k regex:wgmma_gemm --launch-count 1 \
    --section SourceCounters --section WarpStateStats --warp-sampling-interval 0 --import-source no \
    -o "$OUT/rep_$1" $BASE --problem "$2" --shape "$3" --variant persistent --verify-only --quiet >"$OUT/ncu_$1.log" 2>&1
  echo "== $1 ncu exit $?"; tail -n 3 "$OUT/ncu_$1.log"
  ncu -i "$OUT/rep_$1.ncu-rep" --page source --csv --print-source sass >"$OUT/src_$1.csv" 2>"$OUT/src_$1.err" ||
    { cat "$OUT/src_$1.err"; ncu -i "$OUT/rep_$1.ncu-rep" --page source --csv >"$OUT/src_$1.csv" 2>&1; }
  ncu -i "$OUT/rep_$1.ncu-rep" --page details --print-units base | sed -n '/Warp State Statistics/,$p' | grep -E "Stall|Cycles|Warp" | sed -E 's/ +/ /g' | cut -c1-140
  python3 scripts/dev/pcsamp_summary.py "$OUT/src_$1.csv" no_instruction 40
  python3 scripts/dev/pcsamp_summary.py "$OUT/src_$1.csv" "all samples|sampling.*all" 25 | sed -n '/^top/,/^by code/p'
  rm -f "$OUT/rep_$1.ncu-rep"
}
step() {
  [ "$1" = pcsamp ] && ncu --help | grep -i -A1 "sampling-interval\|print-source\|--page" | head -20
  case $1 in
    warm)  # the same sampling with ncu's caches left as they are, and the cupti times cold and warm
      pcsamp_case g2048w gemm 128x7168x2048 none
      for l2 in cold warm; do
        $BASE --problem gemm --shape 128x7168x2048 --variant persistent,cublaslt --timer cupti --no-floor --l2 $l2 --max-time 1 --quiet --json $OUT/t_$l2.json >/dev/null 2>&1
        python3 -c "import json,sys; print(sys.argv[2], [(x['variant'], round(x['timing']['median_us'],2)) for x in json.load(open(sys.argv[1]))['results']])" $OUT/t_$l2.json $l2
      done ;;
    pcsamp)
      pcsamp_case g2048 gemm 128x7168x2048
      pcsamp_case g4096 gemm 128x4096x7168
      pcsamp_case g2a group_gemm 192x3072x4096,320x3072x4096
      tar cJf "$OUT/src.tar.xz" -C "$OUT" src_g2048.csv src_g4096.csv src_g2a.csv && rm -f "$OUT"/src_*.csv "$OUT"/*.log ;;
  esac
}
run_steps "pcsamp"
