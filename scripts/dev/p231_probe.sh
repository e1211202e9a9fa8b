#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P231 probe (docs/perf-notes.md): the emulated 64-row CTA with its producers split by parity, on the
# decoder-CTA and the pre-pass token paths. Trace builds carried in .carry/<name>/: trace (main's),
# hany (-DNVFP4_PROBE_HALVES=1 -DNVFP4_PROBE_HALVES_ANY=1), hs1 (+ -DNVFP4_PROBE_SPLITPROD=1) and
# hs2 (+ -DNVFP4_PROBE_SPLITPROD=2), gemm's TU built from P226's, P227's, P229's and P230's patches
# all in scripts/dev/p231_split4.patch (on e9f1482). Runs p226_probe.sh's loop over both paths.
# P231b: BUILDS="trace hs2 hs2n hs2h" (hs2 + -DNVFP4_PROBE_TOKENS_NONE=1 / -DNVFP4_PROBE_TOKENS_HALF=1);
# P231c: BUILDS="trace hs2w hs2z tz" (hs2 + TOKENS_NONE + ATOMS_NONE, + WEIGHTS_NONE; tz main's with all three).
# P231d: BUILDS="trace hs2 hs2a hs3" (hs2 + ATOMS_NONE; SPLITPROD=3: tokens and atoms | weights).
# P231e: BUILDS="trace hs2 hs2a hs2s10" (hs2 + -DNVFP4_PROBE_STAGES=10).
# P231f: BUILDS="trace hs2a ho hs2ao" (hs2 / hs2a + -DNVFP4_PROBE_DECODER_ORDER=1: the decoders rank-major).
# P231g: BUILDS="trace hs2nw hs2anw tnw" (hs2 / hs2a / main + -DNVFP4_PROBE_NO_STREAM_WAIT=1).
# P231h (decoder path only): BUILDS="trace hs2anw hs2anwd tnwd" PROBE_ENV=NVFP4_PROBE_FREE=8 scripts/dev/p226_probe.sh OUT
# (hs2anwd / tnwd: hs2anw / tnw + -DNVFP4_PROBE_FREE_FUSED=1, the decoder CTAs idle from launch 2).
# P231i (pre-pass path): BUILDS="trace hs2a hs2apd tpd" PROBE_ENV="NVFP4_PERSISTENT_TOKENS=prepass NVFP4_PROBE_FREE=16"
# scripts/dev/p226_probe.sh OUT, then BUILDS="hs2apd tpd" at NVFP4_PROBE_FREE=0 (the pre-pass skipped from launch 2 at 16).
#   scripts/dev/p231_probe.sh OUT
set -u
here=$(dirname "$0")
echo "== decoder-CTA path"
BUILDS="${BUILDS:-trace hany hs1 hs2}" bash "$here/p226_probe.sh" "$1"
echo "== pre-pass path"
BUILDS="${BUILDS:-trace hany hs1 hs2}" PROBE_ENV="NVFP4_PERSISTENT_TOKENS=prepass" bash "$here/p226_probe.sh" "$1"
