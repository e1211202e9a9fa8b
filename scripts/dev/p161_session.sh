#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# P161 (docs/perf-notes.md): `tensor-core` gemm's K-halves CTA (NVFP4_TENSOR_CORE_WARPS=8k) on the
# GPU machine: verify-only under it and by the model, the plans, A/B against main's build, the
# tensor-core GPU tests, memcheck and synccheck. Builds in .carry/{base,new}.
#   scripts/dev/p161_session.sh OUT [verify|plans|ab|ab4096|tests|sanitize ...]
. "$(dirname "$0")/session_lib.sh"
session_args "$@"
tc_verify() {  # BIN MODE [VAR=VALUE ...]: verify-only of `tensor-core` gemm on the gemm configs
  local bin=$1 mode=$2 cfg json
  shift 2
  for cfg in configs/gpumode/gemm.json configs/gemm_edges.json configs/smoke.json; do
    json="$OUT/verify_${mode}_$(basename "$cfg")"
    env "$@" timeout 300 "$bin" --config "$cfg" --problem gemm --variant tensor-core --verify-only --quiet \
      --json "$json" >>"$OUT/verify.log" 2>&1
    echo "$mode $cfg exit $? $(python3 -c "
import json,sys,collections
r=json.load(open(sys.argv[1]))['results']
print(dict(collections.Counter(x['status'] for x in r)), sum('K halves' in (x.get('plan') or '') for x in r), 'in K halves')
" "$json")"
  done
}
tc_ab() {  # NAME CONFIG-ARGS BUILD...
  local name=$1 args=$2
  shift 2
  local builds=()
  for b in "$@"; do builds+=(--build "$b"); done
  python3 scripts/dev/ab.py --rounds "${ROUNDS:-3}" --out "$OUT/$name" "${builds[@]}" -- $args --variant tensor-core \
    --timer cupti --no-floor --max-time "${MAXT:-1}" | tee "$OUT/$name.txt"
}
step() {
  case $1 in
    verify)
      tc_verify "$NEW" model
      tc_verify "$NEW" 8k-prepass NVFP4_TENSOR_CORE_WARPS=8k NVFP4_TENSOR_CORE_TOKENS=prepass
      tc_verify "$NEW" 8k-fused NVFP4_TENSOR_CORE_WARPS=8k NVFP4_TENSOR_CORE_TOKENS=fused ;;
    plans)
      for s in 128x7168x16384 128x4096x7168 128x7168x2048; do
        for w in "" 8k; do
          echo "$s warps=${w:-model}: $(NVFP4_TENSOR_CORE_WARPS=$w $NEW --problem gemm --shape $s --variant tensor-core \
            --verify-only --quiet --json "$OUT/plan.json" >/dev/null 2>&1; python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print(r['status'], r.get('plan'))" "$OUT/plan.json")"
        done
      done ;;
    ab)
      tc_ab ab-gemm "--config configs/gpumode/gemm.json --role benchmark" base=$BASE new=$NEW \
        "new-8k=$NEW:NVFP4_TENSOR_CORE_WARPS=8k" "new-4=$NEW:NVFP4_TENSOR_CORE_WARPS=4" ;;
    ab2) tc_ab ab2-gemm "--config configs/gpumode/gemm.json --role benchmark" base=$BASE new=$NEW ;;
    verifyth)
      NEW=.carry/th/nvfp4bench tc_verify .carry/th/nvfp4bench th-model
      tc_verify .carry/th/nvfp4bench th-8k-fused NVFP4_TENSOR_CORE_WARPS=8k NVFP4_TENSOR_CORE_TOKENS=fused
      tc_verify .carry/th/nvfp4bench th-8k-prepass NVFP4_TENSOR_CORE_WARPS=8k NVFP4_TENSOR_CORE_TOKENS=prepass ;;
    abth)  # K halves (new) against token halves (.carry/th), 8k forced, on the three gemm shapes
      for shape in 128x7168x2048 128x7168x16384; do
        ROUNDS=3 tc_ab "abth-$shape" "--problem gemm --shape $shape" base=$BASE "kh=$NEW:NVFP4_TENSOR_CORE_WARPS=8k" \
          "th=.carry/th/nvfp4bench:NVFP4_TENSOR_CORE_WARPS=8k"
      done
      ROUNDS=2 tc_ab abth-4096 "--problem gemm --shape 128x4096x7168" base=$BASE \
        "kh-s3=$NEW:NVFP4_TENSOR_CORE_WARPS=8k,NVFP4_TENSOR_CORE_SPLITS=3" \
        "th-s3=.carry/th/nvfp4bench:NVFP4_TENSOR_CORE_WARPS=8k,NVFP4_TENSOR_CORE_SPLITS=3" ;;
    verify2)
      tc_verify .carry/new2/nvfp4bench new2-model
      tc_verify .carry/new2/nvfp4bench new2-8k-fused NVFP4_TENSOR_CORE_WARPS=8k NVFP4_TENSOR_CORE_TOKENS=fused
      tc_verify .carry/new2/nvfp4bench new2-8k-prepass NVFP4_TENSOR_CORE_WARPS=8k NVFP4_TENSOR_CORE_TOKENS=prepass ;;
    ab2phase)  # the two-phase fold (.carry/new2) against the fold before the exchange (new)
      ROUNDS=4 tc_ab ab2phase "--problem gemm --shape 128x7168x2048" base=$BASE new=$NEW new2=.carry/new2/nvfp4bench ;;
    tests2) NEWT=.carry/new2/gpu_tests; timeout 300 $NEWT --gtest_filter='Variants.TensorCoreWarps:Variants.Gemm' >"$OUT/gpu_tests2.log" 2>&1
      echo "gpu_tests (new2) exit $?"; grep -E "^\[  (PASSED|FAILED) |^\[       OK|FAILED TEST|Failure" "$OUT/gpu_tests2.log" | head -n 20 ;;
    report)
      default_report "$NEW" "$OUT" default
      grep -E "^\| (gemm|dual_gemm) .*tensor-core" "$OUT/default.md" | head -n 8 ;;
    ab4096)
      ROUNDS=2 tc_ab ab-4096 "--problem gemm --shape 128x4096x7168" base=$BASE \
        "8k-s2=$NEW:NVFP4_TENSOR_CORE_WARPS=8k,NVFP4_TENSOR_CORE_SPLITS=2" \
        "8k-s3=$NEW:NVFP4_TENSOR_CORE_WARPS=8k,NVFP4_TENSOR_CORE_SPLITS=3" \
        "8k-s4=$NEW:NVFP4_TENSOR_CORE_WARPS=8k,NVFP4_TENSOR_CORE_SPLITS=4" \
        "8k-s7=$NEW:NVFP4_TENSOR_CORE_WARPS=8k,NVFP4_TENSOR_CORE_SPLITS=7" ;;
    knobs)  # gemm 128x7168x2048 under 8k: token path and 2-rank reduction forced
      ROUNDS=2 tc_ab knobs-2048 "--problem gemm --shape 128x7168x2048" base=$BASE "8k=$NEW:NVFP4_TENSOR_CORE_WARPS=8k" \
        "8k-prepass=$NEW:NVFP4_TENSOR_CORE_WARPS=8k,NVFP4_TENSOR_CORE_TOKENS=prepass" \
        "8k-pull=$NEW:NVFP4_TENSOR_CORE_WARPS=8k,NVFP4_TENSOR_CORE_PUSH=0" \
        "8k-pf0=$NEW:NVFP4_TENSOR_CORE_WARPS=8k,NVFP4_TENSOR_CORE_TOKENS=prepass,NVFP4_TOKEN_PREFETCH_MB=0" ;;
    ksweep)  # time against K, 56 x 2 on 112 CTAs: 8k, and 4 warps (lone CTAs)
      for k in 1024 2048 4096 8192 16384; do
        for w in 8k 4; do
          NVFP4_TENSOR_CORE_WARPS=$w NVFP4_TENSOR_CORE_SPLITS=2 NVFP4_TENSOR_CORE_SCHED=data $NEW --problem gemm \
            --shape 128x7168x$k --variant tensor-core --timer cupti --no-floor --max-time 0.5 --quiet \
            --json "$OUT/k.json" >/dev/null 2>&1
          echo "K=$k warps=$w $(python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print(r['status'], r['timing']['median_us'], r.get('plan'))" "$OUT/k.json")"
        done
      done ;;
    trace)  # the probe build's stamps (.carry/trace), medians over CTAs
      for c in "128x7168x2048 NVFP4_TENSOR_CORE_WARPS=8k" "128x7168x2048 NVFP4_TENSOR_CORE_WARPS=4" \
        "128x4096x7168 NVFP4_TENSOR_CORE_WARPS=4" "128x4096x7168 NVFP4_TENSOR_CORE_WARPS=8k"; do
        set -- $c
        rm -f "$OUT/t.trace"
        env NVFP4_TRACE_OUT="$OUT/t.trace" "$2" .carry/trace/nvfp4bench --problem gemm --shape "$1" --variant tensor-core \
          --timer cupti --no-floor --max-time 0.3 --quiet --json "$OUT/t.json" >/dev/null 2>&1
        echo "==== $c exit $? $(python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print(r['status'], r['timing']['median_us'], 'us')" "$OUT/t.json")"
        python3 scripts/dev/mma_trace_summary.py "$OUT/t.trace"
      done ;;
    tests) gpu_tests_run "$OUT" 'Variants.TensorCore*:Variants.Gemm:Variants.DualGemm:Variants.EverySplitCount:Variants.FusedTokensRelaunch' 420 ;;
    sanitize)
      for tool in memcheck synccheck; do
        NVFP4_TENSOR_CORE_WARPS=8k timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 "$NEW" --config configs/smoke.json \
          --problem gemm --variant tensor-core --verify-only --quiet --json "$OUT/san.json" >"$OUT/$tool.txt" 2>&1
        echo "$tool exit $? $(grep -hE "ERROR SUMMARY" "$OUT/$tool.txt" | tail -n 1)"
      done ;;
  esac
}
run_steps "verify plans ab ab4096 tests sanitize"
