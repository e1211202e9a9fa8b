#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P196b / P196c (docs/perf-notes.md): p196_session.sh's shorter checks, group_gemm's A/B and one trace.
#   scripts/dev/p196b_session.sh OUT
P196_TESTS='Variants.GroupGemm:Variants.StreamTokensRelaunch' P196_AB=group_gemm \
  exec bash "$(dirname "$0")/p196_session.sh" "$1" tests verify-short ab trace
