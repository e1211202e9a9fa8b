#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P171 (docs/perf-notes.md): the GPU tests that this session's test refactor touches (TensorCoreWarps,
# CutUnitsRelaunch) and the GEMM-family ones on HEAD's build (hopper.cuh's generated wgmma
# wrappers: SASS identical), then HEAD's trace build on the three cases short of their bars, for
# their phases. Builds in .carry/new (nvfp4bench, gpu_tests) and .carry/trace.
#   scripts/dev/p171_session.sh OUT [tests|trace ...]
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
step() {
  case $1 in
    tests) gpu_tests_run "$OUT" 'Variants.TensorCoreWarps:Variants.CutUnitsRelaunch:Variants.Gemm:Variants.DualGemm:Variants.GroupGemm' 400 ;;
    trace)
      for i in 1 2; do
        trace_run "$OUT" g2a-$i group_gemm 192x3072x4096,320x3072x4096 | head -n 24
        trace_run "$OUT" g4096-$i gemm 128x4096x7168 | head -n 24
        trace_run "$OUT" g2048-$i gemm 128x7168x2048 | head -n 24
      done ;;
  esac
}
run_steps "tests trace"
