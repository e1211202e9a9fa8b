#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P213 (docs/perf-notes.md): the start's token chains skipped in the timed launches (NVFP4_PROBE_FREE: 1 decoders, 2 local tokens, 3 both).
#   scripts/dev/p213_session.sh OUT      (.carry/new = the probe build (scripts/dev/p213_free_chains.patch), .carry/base = main's)
exec "$(dirname "$0")/knob_probe_session.sh" "$1" NVFP4_PROBE_FREE 3 "1 2 3"
