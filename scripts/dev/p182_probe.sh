#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P182 probe (docs/perf-notes.md): P179's emulated 64-row CTA (.carry/halves) against the same with only
# every other step's token tile copied (.carry/halftok: scripts/dev/p182_halves_tokens_probe.patch with
# NVFP4_PROBE_HALVES=1 NVFP4_PROBE_TOKENS_HALF=1, trace build): P181's run over those two builds.
#   scripts/dev/p182_probe.sh OUT
BUILDS="${BUILDS:-halves halftok}" exec "$(dirname "$0")/p181_probe.sh" "$@"
