#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P212 (docs/perf-notes.md): the token warp sleeping NVFP4_PROBE_POLLSLEEP ns between its polls of the decoders' counters.
#   scripts/dev/p212_session.sh OUT      (.carry/new = the probe build (scripts/dev/p212_poll_backoff.patch), .carry/base = main's)
exec "$(dirname "$0")/knob_probe_session.sh" "$1" NVFP4_PROBE_POLLSLEEP "200 2000" "50 200 500"
