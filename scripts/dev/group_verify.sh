# SPDX-License-Identifier: Apache-2.0
# Sourced by the GPU-machine session scripts (p123_session.sh, p125_session.sh):
#   group_verify BIN OUT MARKER MODE [VAR=VALUE ...]
# verify-only of every group_gemm case of the gpu-mode config, gemm_edges and smoke with the
# variables set (none: as planned), printing per config the exit code, the statuses and how many
# plans contain MARKER (the change's plan text).
group_verify() {
  local bin=$1 out=$2 marker=$3 mode=$4
  shift 4
  local cfg json
  for cfg in configs/gpumode/group_gemm.json configs/gemm_edges.json configs/smoke.json; do
    json="$out/verify_${mode}_$(basename "$cfg")"
    env "$@" "$bin" --config "$cfg" --problem group_gemm --variant persistent --verify-only --quiet --json "$json" \
      >>"$out/verify.log" 2>&1
    echo "$mode $cfg exit $? $(python3 -c "
import json,sys,collections
r=json.load(open(sys.argv[1]))['results']
print(dict(collections.Counter(x['status'] for x in r)), sum(sys.argv[2] in (x.get('plan') or '') for x in r), 'plans with:', sys.argv[2])
" "$json" "$marker")"
  done
}
