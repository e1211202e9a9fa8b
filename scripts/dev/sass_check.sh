#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Before any GPU A/B of a `persistent` change: the sm_90a cubins of kernels/<problem>/persistent.cu
# for git revision BASE (default main) and for the working tree, compiled as the build compiles them,
# their K loops compared by instruction order (sass_loops.py: SAME / ORDER / SIZE) and each side's
# ptxas spill lines. ORDER means ptxas rescheduled a loop, which alone moved the 2 x 128 group kernels
# by up to 5 % (docs/perf-notes.md P160b-P160e): read such an A/B as the change plus a new schedule.
#   scripts/dev/sass_check.sh [BASE [PROBLEM...]]     problems default: gemm dual_gemm group_gemm
# NEW_FLAGS (environment): extra nvcc flags for the working tree's side only, e.g. NEW_FLAGS=-DNVFP4_TRACE=1
# to check that a trace build's stamps leave the K loops as the report build has them before reading
# step rates from it (a branch whose in-loop stamps made its loops 192-213 SASS lines a step against
# 116 gave rates 15-90 % slower than the report build's, docs/perf-notes.md P205).
# Needs nvcc and cuobjdump on PATH (cuobjdump: the CUDA toolkit, or PyPI's nvidia-cuda-cuobjdump).
set -euo pipefail
cd "$(dirname "$0")/../.."
base=${1:-main}
shift || true
problems=${*:-gemm dual_gemm group_gemm}
command -v cuobjdump >/dev/null || { echo "sass_check.sh: cuobjdump not on PATH (CUDA toolkit or pip nvidia-cuda-cuobjdump)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/base"
git archive "$base" src kernels | tar x -C "$work/base"
cubin() {  # ROOT PROBLEM OUT [FLAGS...]: the build's flags for sm_90a (CMakeLists.txt: C++20, -O3, relaxed constexpr)
  local root=$1 prob=$2 out=$3
  shift 3
  nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -I"$root/src" -I"$root/kernels" --expt-relaxed-constexpr \
    "$@" -cubin -o "$out.cubin" "$root/kernels/$prob/persistent.cu" -Xptxas -v >"$out.ptxas" 2>&1
}
# shellcheck disable=SC2086  # NEW_FLAGS: flags split on spaces
for p in $problems; do
  cubin "$work/base" "$p" "$work/base-$p" &
  cubin . "$p" "$work/new-$p" ${NEW_FLAGS:-} &
done
wait
for p in $problems; do
  echo "== $p (K loops: $base -> working tree)"
  python3 scripts/dev/sass_loops.py "$work/base-$p.cubin" "$work/new-$p.cubin"
  for side in base new; do
    spills=$(grep -c "[1-9][0-9]* bytes spill" "$work/$side-$p.ptxas" || true)
    echo "   $side: $(grep -c "Function properties" "$work/$side-$p.ptxas") functions, $spills with spills"
  done
done
