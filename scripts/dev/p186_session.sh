#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P186 / P186b (docs/perf-notes.md): the decoder CTAs' items dealt across CTAs, the first round stored in
# item order (branch p186-ordered-stream). .carry/base = main's build, .carry/new = the branch's
# (nvfp4bench, gpu_tests), .carry/trace = the branch's trace build with P185's stamps and the decoders'
# (p186_trace.patch, p186b_trace.patch). P184's steps, with the decoders' warp 11 and the copies'
# steps among the trace rows, G=2 [192,320] traced at 8 and 4 local steps.
#   scripts/dev/p186_session.sh OUT [verify|tests|trace|ab ...]
DEC_ROWS='main CTAs|decoder|unit next_work|stream wait|item 0 (decoded|counted)|warp 11|copy step (4|8|12|16) |step (4|8|16) full|local stored|first loop end' \
  DEC_G2A_LGS='2 1' exec bash "$(dirname "$0")/p184_session.sh" "$@"
