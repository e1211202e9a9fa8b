#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On the GPU machine: the planner's knobs forced, one case at a time, against the default plan of
# the same binary, alternated (scripts/dev/ab.py), on the benchmark cases nearest their bars.
# Measures whether the cost model's picks (its constants were measured on an H100) still hold on
# this board. Usage: scripts/dev/knob_sweep.sh BIN OUT [sections...]
#   sections (default all): g2a g2b g8 gemm tc
set -uo pipefail
BIN=$1 OUT=$2
shift 2
sections=${*:-"g2a g2b g8 gemm tc"}
. "$(dirname "$0")/gpu_env.sh"
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
R=${ROUNDS:-2}
T=${MAXT:-1}
ab() {  # ab NAME VARIANT PROBLEM SHAPE build...
  local name=$1 var=$2 prob=$3 shape=$4
  shift 4
  local b=(--build "default=$BIN")
  for k in "$@"; do  # a build's name: the knob without NVFP4_, '=' as '-'
    local n=${k#NVFP4_}
    b+=(--build "${n//=/-}=$BIN:$k")
  done
  echo "==== $name"
  python3 scripts/dev/ab.py --rounds "$R" --out "$OUT/$name" "${b[@]}" -- --problem "$prob" --shape "$shape" \
    --variant "$var" --timer cupti --no-floor --max-time "$T" 2>&1 | tee "$OUT/$name.txt"
}
P=NVFP4_PERSISTENT
for s in $sections; do
  case $s in
    g2a) ab g2a persistent group_gemm 192x3072x4096,320x3072x4096 \
           ${P}_TOKENS=fused ${P}_TOKENS=prepass ${P}_LOCAL_GROUPS=0 ${P}_LOCAL_GROUPS=2 ${P}_ISSUERS=2 \
           ${P}_CTA=3x128 ${P}_CTA=2x256 NVFP4_TOKEN_PREFETCH_MB=0 NVFP4_TOKEN_PREFETCH_MB=3 ${P}_NARROW=0 ;;
    g2b) ab g2b persistent group_gemm 128x4096x1536,384x4096x1536 \
           ${P}_TOKENS=stream ${P}_TOKENS=prepass ${P}_ISSUERS=2 ${P}_CTA=3x128 ${P}_CTA=2x256 \
           NVFP4_TOKEN_PREFETCH_MB=0 NVFP4_TOKEN_PREFETCH_MB=3 ${P}_NARROW=0 ;;
    g8) ab g8 persistent group_gemm 80x4096x7168,176x4096x7168,128x4096x7168,72x4096x7168,64x4096x7168,248x4096x7168,96x4096x7168,160x4096x7168 \
           ${P}_EARLY_STEPS=2 ${P}_EARLY_STEPS=3 ${P}_TOKENS=prepass ${P}_ISSUERS=2 ${P}_CTA=2x128 ;;
    gemm) ab gemm-4096 persistent gemm 128x4096x7168 ${P}_TOKENS=prepass ${P}_TOKENS=stream ${P}_SPLITS=3 ${P}_SPLITS=5 \
            ${P}_REDUCE=cluster ${P}_ISSUERS=2
          ab gemm-2048 persistent gemm 128x7168x2048 ${P}_TOKENS=fused ${P}_TOKENS=prepass ${P}_LOCAL_GROUPS=0 \
            ${P}_LOCAL_GROUPS=2 ${P}_SPLITS=3 ${P}_REDUCE=global NVFP4_TOKEN_PREFETCH_MB=3 ;;
    tc) ab tc-4096 tensor-core gemm 128x4096x7168 NVFP4_TENSOR_CORE_WARPS=8 NVFP4_TENSOR_CORE_SPLITS=4 \
          NVFP4_TENSOR_CORE_SPLITS=6 NVFP4_TENSOR_CORE_TOKENS=prepass NVFP4_TENSOR_CORE_SCHED=stream-k
        ab tc-2048 tensor-core gemm 128x7168x2048 NVFP4_TENSOR_CORE_WARPS=8 NVFP4_TENSOR_CORE_SPLITS=3 \
          NVFP4_TENSOR_CORE_SPLITS=4 NVFP4_TENSOR_CORE_TOKENS=prepass NVFP4_TOKEN_PREFETCH_MB=0 ;;
  esac
done
