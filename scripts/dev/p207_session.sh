#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P207 (docs/perf-notes.md): where G=2 [192,320]'s ~9 us that do not grow with K come from, read on
# the report build (.carry/base) with scripts/dev/k_slope.sh at K = 256, 512, 1024 for cases that
# share parts of its plan (N=3072; 72 128-wide units; two groups; 64-wide units), persistent and
# cublaslt.   scripts/dev/p207_session.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
ks="256 512 1024"
for c in "group_gemm 192x3072xK,320x3072xK" "group_gemm 128x3072xK,128x3072xK,128x3072xK" "group_gemm 384x3072xK" \
  "gemm 384x3072xK" "group_gemm 128x3072xK,128x3072xK" "group_gemm 128x3072xK" "gemm 128x3072xK" \
  "group_gemm 64x3072xK,64x3072xK,64x3072xK,64x3072xK" "gemm 128x7168xK"; do
  set -- $c
  bash scripts/dev/k_slope.sh "$BASE" "$1" "$2" "$ks" persistent,cublaslt
done
