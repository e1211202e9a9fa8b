#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P211 (docs/perf-notes.md): the decoder CTAs' start delayed by NVFP4_PROBE_DDELAY ns.
#   scripts/dev/p211_session.sh OUT      (.carry/new = the probe build (scripts/dev/p211_decoder_delay.patch), .carry/base = main's)
exec "$(dirname "$0")/knob_probe_session.sh" "$1" NVFP4_PROBE_DDELAY "1000 3000" "500 1000 2000"
