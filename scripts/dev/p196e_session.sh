#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P196e (docs/perf-notes.md, "Next (after P188-P196c)"): why P196c's K loop ran ~1.6 us longer. G=2
# [192,320] under four builds, alternated: .carry/base = main's, .carry/p196c = branch p196-local-half
# at d992cec, .carry/code = the same branch built with -DNVFP4_P196_CODE_ONLY=1 (the parts' code compiled
# in, never run: same size and K-loop addresses as P196c's), .carry/smem = branch p196d-smem-only (main
# launched with 9 KiB more shared memory, unused). Kept built in build-p196e/bins/ (see the notes).
#   scripts/dev/p196e_session.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
ROUNDS=${ROUNDS:-4} MAXT=0.4 ab_problems "$OUT" ab group_gemm base=.carry/base/nvfp4bench \
  p196c=.carry/p196c/nvfp4bench code=.carry/code/nvfp4bench smem=.carry/smem/nvfp4bench
