#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P178 probe (docs/perf-notes.md): a split-K rank's 32 KiB half sent to its peer four ways
# (scripts/dev/push_probe.cu built as .carry/push_probe).   scripts/dev/p178_probe.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
.carry/push_probe | tee "$OUT/push.txt"
