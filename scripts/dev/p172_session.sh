#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P172 (docs/perf-notes.md): the tokens kept raw in the workspace. main's 4312629 build in .carry/base,
# the branch's in .carry/new (nvfp4bench, gpu_tests).   scripts/dev/p172_session.sh OUT [verify|tests|ab ...]
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
CONFIGS="configs/gpumode/gemm.json configs/gpumode/dual_gemm.json configs/gpumode/group_gemm.json configs/gemm_edges.json configs/smoke.json"
# Verify-only of persistent and tensor-core with each token path forced, both builds; then every
# case's errors (mismatches, max_abs, max_rel) compared between the builds: the same bits expected.
verify_both() {  # MODE VAR=VALUE...
  local mode=$1 cfg b
  shift
  for b in base new; do
    for cfg in $CONFIGS; do
      env "$@" timeout 300 .carry/$b/nvfp4bench --config "$cfg" \
        --variant persistent,tensor-core --verify-only --quiet --json "$OUT/v_${mode}_${b}_$(basename "$cfg")" \
        >>"$OUT/verify.log" 2>&1 || echo "$b $mode $cfg exit $?"
    done
  done
  python3 - "$OUT" "$mode" $CONFIGS <<'PY'
import json, sys, os, collections
out, mode, cfgs = sys.argv[1], sys.argv[2], sys.argv[3:]
st = collections.Counter(); same = diff = 0
for c in cfgs:
    f = lambda b: os.path.join(out, f"v_{mode}_{b}_{os.path.basename(c)}")
    try:
        rb, rn = (json.load(open(f(b)))["results"] for b in ("base", "new"))
    except Exception as e:
        print("  missing", c, e); continue
    key = lambda r: (r["problem"], r["shape"], r["variant"], r.get("seed"), r.get("dist"))
    base = {key(r): r for r in rb}
    for r in rn:
        st[r["status"]] += 1
        b = base.get(key(r))
        ck = lambda x: None if x is None or not x.get("check") else (x["check"].get("mismatches"), x["check"].get("max_abs"), x["check"].get("max_rel"))
        if b is not None and ck(b) == ck(r): same += 1
        else:
            diff += 1
            print("  DIFF", key(r), ck(b) if b else None, ck(r))
print(f"{mode}: new statuses {dict(st)}; errors identical to base in {same} cases, different in {diff}")
PY
}
step() {
  case $1 in
    verify)
      verify_both default
      verify_both prepass NVFP4_PERSISTENT_TOKENS=prepass NVFP4_TENSOR_CORE_TOKENS=prepass
      verify_both fused NVFP4_PERSISTENT_TOKENS=fused NVFP4_TENSOR_CORE_TOKENS=fused
      verify_both stream NVFP4_PERSISTENT_TOKENS=stream ;;
    tests) gpu_tests_run "$OUT" 'Variants.Gemm:Variants.DualGemm:Variants.GroupGemm:Variants.TokenModes:Variants.FusedTokensRelaunch:Variants.StreamTokensRelaunch:Variants.WideFusedTokensRelaunch:Variants.CutUnitsRelaunch' 400 ;;
    ab)
      for prob in gemm dual_gemm group_gemm; do
        python3 scripts/dev/ab.py --rounds "${ROUNDS:-3}" --out "$OUT/ab_$prob" --build base=$BASE --build new=$NEW \
          -- --config "configs/gpumode/$prob.json" --role benchmark --variant persistent,tensor-core --timer cupti \
          --no-floor --max-time "${MAXT:-1}" | tee "$OUT/ab_$prob.txt"
      done ;;
  esac
}
run_steps "verify tests ab"
