#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sass_kloop.sh [SOURCE.cu ...]: the size of each wgmma kernel's K loop in SASS, per consumer warp
# and K step: the instructions from the target of the first back branch after the first HGMMA to
# that branch, and the HGMMAs among them (docs/perf-notes.md P14). Needs nvcc and cuobjdump only,
# no GPU. Default sources: the three `persistent` variants.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
srcs=("$@")
[ ${#srcs[@]} -gt 0 ] || srcs=(kernels/gemm/persistent.cu kernels/dual_gemm/persistent.cu kernels/group_gemm/persistent.cu)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for src in "${srcs[@]}"; do
  nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -I"$ROOT/src" -I"$ROOT/kernels" --expt-relaxed-constexpr \
    -cubin -o "$tmp/k.cubin" "$ROOT/$src"
  for fn in $(cuobjdump -sass "$tmp/k.cubin" | grep -oE "Function : \S*wgmma_gemm_kernel\S*" | awk '{print $3}'); do
    cuobjdump -sass -fun "$fn" "$tmp/k.cubin" | grep -E '^\s+/\*[0-9a-f]{4,5}\*/' >"$tmp/k.sass"
    first=$(awk '/HGMMA/ { print NR; exit }' "$tmp/k.sass")
    back=$(awk -v h="$first" '/BRA 0x/ && NR > h { print NR; exit }' "$tmp/k.sass")
    target=$(awk -v b="$back" 'NR == b { match($0, /BRA 0x[0-9a-f]+/); print substr($0, RSTART + 6, RLENGTH - 6) }' "$tmp/k.sass")
    head=$(awk -v t="$target" '{ if (match($0, /\/\*[0-9a-f]+\*\//)) { a = substr($0, RSTART + 2, RLENGTH - 4); sub(/^0+/, "", a); if (a == t) { print NR; exit } } }' "$tmp/k.sass")
    hgmma=$(awk -v w="$head" -v b="$back" 'NR >= w && NR <= b' "$tmp/k.sass" | grep -c HGMMA)
    shape=$(echo "$fn" | grep -oE 'ILi[0-9]+ELi[0-9]+ELi[0-9]+' | sed -E 's/ILi([0-9]+)ELi([0-9]+)ELi([0-9]+)/NB=\1 C=\2 T=\3/')
    echo "$src $shape: K loop $((back - head + 1)) instructions, $hgmma HGMMA"
  done
done
