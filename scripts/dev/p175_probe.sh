#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P175 probe (docs/perf-notes.md): main's build (.carry/base) against two measurement builds whose
# epilogue has 64 multiplies fewer (.carry/p1) or more (.carry/p2); their outputs are wrong on
# purpose (timing only).   scripts/dev/p175_probe.sh OUT [ab ...]
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    ab) ROUNDS=${ROUNDS:-3} ab_problems "$OUT" ab "gemm group_gemm" base=$BASE p1=.carry/p1/nvfp4bench p2=.carry/p2/nvfp4bench ;;
  esac
}
run_steps "ab"
