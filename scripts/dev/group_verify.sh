# SPDX-License-Identifier: Apache-2.0
# Sourced by the GPU-machine session scripts (p123_session.sh, p125_session.sh, ...):
#   group_verify BIN OUT MARKER MODE [VAR=VALUE ...]
# verify-only of every group_gemm case of the gpu-mode config, gemm_edges and smoke with the
# variables set (none: as planned), printing per config the exit code, the statuses and how many
# plans contain MARKER (the change's plan text): session_lib.sh's verify_groups, arguments in this order.
. "$(dirname "${BASH_SOURCE[0]}")/session_lib.sh"
group_verify() {
  local bin=$1 out=$2 marker=$3 mode=$4
  shift 4
  verify_groups "$bin" "$out" "$mode" "$marker" "$@"
}
