#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P169 probe (docs/perf-notes.md): what bounds the `persistent` main kernel's K loop on the cases
# short of their bars (Nsight Compute, full set, one launch each: tensor pipe, L2 and DRAM
# throughput, warp stalls), and the group planner's stream-K and 2 x 256 choices forced on
# G=2 [192,320]. main's build in .carry/base.   scripts/dev/p169_probe.sh OUT [ncu|knobs ...]
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
ncu_case() {  # ncu_case NAME PROBLEM SHAPE
  timeout 240 ncu --clock-control none --cache-control all -k regex:wgmma_gemm --launch-count 1 --set full \
    --import-source no --page details --print-units base \
    $BASE --problem "$2" --shape "$3" --variant persistent --verify-only --quiet >"$OUT/ncu_$1.txt" 2>&1
  echo "== $1 ncu exit $?"
  grep -E "wgmma_gemm_kernel<|Duration|Compute \(SM\) Throughput|Memory Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|DRAM Throughput|Executed Ipc Active|Issue Slots Busy|No Eligible|Active Warps Per Scheduler|Eligible Warps|Warp Cycles Per Issued|L2 Hit Rate|Mem Busy|Max Bandwidth|Mem Pipes Busy" \
    "$OUT/ncu_$1.txt" | sed -E 's/ +/ /g' | cut -c1-150
  # Every stall reason the warp-state section reports, by cycles per issued instruction.
  sed -n '/Section: Warp State Statistics/,/Section:/p' "$OUT/ncu_$1.txt" | grep -E "Stall|Warp Cycles" | sed -E 's/ +/ /g' | cut -c1-120
}
step() {
  case $1 in
    ncu)
      ncu_case g2a group_gemm 192x3072x4096,320x3072x4096
      ncu_case g4096 gemm 128x4096x7168
      ncu_case g2048 gemm 128x7168x2048 ;;
    knobs)
      P=NVFP4_PERSISTENT
      python3 scripts/dev/ab.py --rounds 2 --out "$OUT/knobs" --build default=$BASE \
        --build sk=$BASE:${P}_SCHED=stream-k --build w256=$BASE:${P}_CTA=2x256 \
        --build w256sk=$BASE:${P}_CTA=2x256,${P}_SCHED=stream-k --build c3sk=$BASE:${P}_CTA=3x128,${P}_SCHED=stream-k \
        -- --problem group_gemm --shape 192x3072x4096,320x3072x4096 --variant persistent --timer cupti --no-floor \
        --max-time 1 | tee "$OUT/knobs.txt"
      for b in default sk w256 w256sk c3sk; do
        python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; print(sys.argv[2], [x.get('plan') for x in r if x['variant']=='persistent'])" \
          "$OUT/knobs/${b}_r1.json" $b | cut -c1-400
      done ;;
  esac
}
run_steps "ncu knobs"
