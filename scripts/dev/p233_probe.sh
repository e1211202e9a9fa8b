#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P233 probe (docs/perf-notes.md): gemm 128x4096x7168 forced to 2 K splits on the decoder-CTA token
# path with its decoder CTAs capped (NVFP4_PROBE_DECODERS, scripts/dev/p233_decoder_cap.patch on main's
# report build, carried in .carry/cap/), against the default plan and the fused and pre-pass paths;
# (data-parallel, 2 x 128 forced: P233b; P233 without them got stream-K for that shape);
# cupti, cold L2, ROUNDS rounds of the modes alternated (session_lib.sh mode_rounds).
#   scripts/dev/p233_probe.sh OUT
. "$(dirname "$0")/session_lib.sh"
OUT=$1
session_start "$OUT"
s2="NVFP4_PERSISTENT_SPLITS=2 NVFP4_PERSISTENT_SCHED=data NVFP4_PERSISTENT_CTA=2x128"
mode_rounds "$OUT" "${SHAPES:-128x4096x7168}" "default:cap:" "s2-stream:cap:$s2 NVFP4_PERSISTENT_TOKENS=stream" \
  "s2-cap8:cap:$s2 NVFP4_PERSISTENT_TOKENS=stream NVFP4_PROBE_DECODERS=8" \
  "s2-cap4:cap:$s2 NVFP4_PERSISTENT_TOKENS=stream NVFP4_PROBE_DECODERS=4" \
  "s2-fused:cap:$s2 NVFP4_PERSISTENT_TOKENS=fused" "s2-prepass:cap:$s2 NVFP4_PERSISTENT_TOKENS=prepass"
