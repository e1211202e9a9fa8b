#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU-machine session of docs/perf-notes.md P132 (group_gemm's tables prefetched into L2 by the
# pre-pass), over builds carried in .carry/base (main) and .carry/new, then both builds' default
# reports (the one to commit is the one whose code lands):   scripts/dev/p132_session.sh OUT
set -uo pipefail
. "$(dirname "$0")/group_verify.sh"
session_args "$1"
echo "==== verify"
group_verify $NEW "$OUT" "pre-pass" default
group_verify $NEW "$OUT" "pre-pass" tp0 NVFP4_PERSISTENT_TABLE_PREFETCH=0
echo "==== tests"
gpu_tests_run "$OUT" 'Variants.GroupGemm:Variants.PersistentGroupNarrowAndBalance:Variants.PersistentRejectsBadKnobs' 120
echo "==== ab"
ab_problems "$OUT" ab group_gemm base=$BASE new=$NEW new-tp0=$NEW:NVFP4_PERSISTENT_TABLE_PREFETCH=0
echo "==== reports"
for b in base new; do default_report .carry/$b/nvfp4bench "$OUT" default_$b; done
