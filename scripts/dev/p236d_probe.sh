#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P236d probe (docs/perf-notes.md): scripts/dev/start_probe.cu (built in .carry/sp) with
# nvfp4bench's own clean read flush before each launch, alone (stamps) and under Nsight Compute with
# no flush of its own (--cache-control none): the skeleton in the issue's measure, with the
# cp.async-fed start and one local token step (m9) added.
#   scripts/dev/p236d_probe.sh OUT
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
timeout 60 .carry/sp/start_probe read | tee "$OUT/stamps.txt"
timeout 120 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum .carry/sp/start_probe read \
  >"$OUT/ncu_none.txt" 2>&1
python3 scripts/dev/ncu_times.py modes "$OUT/ncu_none.txt" NCU-NONE
grep STAMPS "$OUT/ncu_none.txt" | sed 's/^/(under ncu) /'
