#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine session of docs/perf-notes.md P134 (global_split_reduce: the peers' parts by cp.async),
# over builds carried in .carry/base (7bc01f4), .carry/p133 (P133), .carry/new and .carry/trace (the
# new kernels with NVFP4BENCH_TRACE=ON):   scripts/dev/p134_session.sh OUT [steps...]
#   steps: verify ab tests sanitize trace report
set -uo pipefail
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    verify) verify_gemms $NEW "$OUT" p134 "partial sums through L2"
      for n in 2 3 5 8; do verify_configs $NEW "$OUT" "s$n" "partial sums through L2" gemm \
        "configs/gpumode/gemm.json configs/gemm_edges.json" NVFP4_PERSISTENT_REDUCE=global NVFP4_PERSISTENT_SPLITS=$n; done ;;
    ab) ab_problems "$OUT" ab gemm base=$BASE p133=.carry/p133/nvfp4bench new=$NEW ;;
    tests) gpu_tests_run "$OUT" 'Variants.Gemm:Variants.GlobalSplitRelaunch' ;;
    sanitize)
      for tool in memcheck racecheck; do
        NVFP4_PERSISTENT_REDUCE=global timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $NEW --problem gemm \
          --shape 128x1024x2048 --variant persistent --verify-only --quiet --json "$OUT/san.json" >"$OUT/$tool.txt" 2>&1
        echo "$tool exit $? $(grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|Internal" "$OUT/$tool.txt" | tail -n 1)"
      done ;;
    trace) trace_run "$OUT" gemm4096 gemm 128x4096x7168 ;;
    report) default_report $NEW "$OUT" default ;;
  esac
}
run_steps "verify ab"
