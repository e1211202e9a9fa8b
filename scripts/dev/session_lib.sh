# SPDX-License-Identifier: Apache-2.0
# Sourced by the GPU-machine session scripts (p126_session.sh onwards): the pieces every one of them
# runs, over builds carried in .carry/<name>/. Sourcing it only defines them.
#   session_args OUT [steps...]               sets OUT, STEPS (the steps given, or empty), NEW and BASE
#                                             (.carry/{new,base}/nvfp4bench), then session_start
#   session_start OUT                         the toolkit's libraries on the loader path, OUT made, the GPU named
#   run_steps DEFAULT                         each of STEPS (or of DEFAULT), headed "==== STEP", through the
#                                             caller's own step function (step NAME)
#   verify_configs BIN OUT MODE MARKER PROBLEMS CONFIGS [VAR=VALUE ...]
#                                             verify-only of `persistent` on each of CONFIGS with the variables
#                                             set (only PROBLEMS' cases run where it names one problem); per
#                                             config the exit code, the statuses of PROBLEMS' cases and how
#                                             many of their plans contain MARKER
#   verify_gemms BIN OUT MODE MARKER [VAR=VALUE ...]
#                                             verify_configs on the gpu-mode gemm and group_gemm configs,
#                                             gemm_edges and smoke, for gemm and group_gemm
#   verify_local_modes BIN OUT KNOB MARKER   verify_gemms with the tokens forced to decoder CTAs, at 4 and 8
#                                             local steps, with KNOB=0 and KNOB=1 (P146, P148)
#   verify_groups BIN OUT MODE MARKER [VAR=VALUE ...]
#                                             verify_configs on the gpu-mode group_gemm config, gemm_edges
#                                             and smoke, for group_gemm
#   sanitize_run BIN OUT PROBLEM SHAPE [VAR=VALUE ...]
#                                             compute-sanitizer memcheck, racecheck and synccheck of
#                                             `persistent` (verify-only) on one shape: per tool the exit
#                                             code, its summary, the hazards reported in our kernels
#                                             (cuBLASLt's reference kernels have their own) and the plan
#   gpu_tests_run OUT FILTER [SECONDS]        .carry/new/gpu_tests on a gtest filter, its verdict lines
#   ab_problems OUT NAME PROBLEMS BUILD...    scripts/dev/ab.py over the gpu-mode benchmark cases of each
#                                             problem (`persistent`, cupti, ROUNDS rounds, MAXT seconds)
#   mode_rounds OUT SHAPES MODE...            gemm `persistent` on each of SHAPES (cupti, cold L2), ROUNDS
#                                             rounds of the MODEs (NAME:BUILD:VAR=VALUE ...: .carry/BUILD/ with
#                                             those variables) alternated; per run the exit code, status,
#                                             median, max_abs and plan, then stderr's last line
#   case_medians JSON PREFIX                  per result of an nvfp4bench JSON report: PREFIX, variant,
#                                             status and median (us)
#   default_report BIN OUT NAME               the default config's report (json, csv, md) as OUT/NAME.*
#   trace_spread OUT NAME PROBLEM SHAPE       trace_run's first lines, then cta_spread.py's per-CTA start spread
#   trace_table OUT NAME PROBLEM SHAPE [VAR=VALUE ...]
#                                             trace_run's verdict line, then p183_summary.py's tables (start,
#                                             decoders, copies by K step), the rows matching TRACE_ROWS and
#                                             not TRACE_SKIP (extended regular expressions) where set
#   trace_alternate OUT RUNS ROWS PROBLEM SHAPE
#                                             trace_table of .carry/trace-a and .carry/trace-b alternated,
#                                             RUNS launches each (named a1, b1, a2, ...), the ROWS shown
#   trace_run OUT NAME PROBLEM SHAPE [VAR=VALUE ...]
#                                             one case of `persistent` on the probe build .carry/trace
#                                             (NVFP4BENCH_TRACE=ON; TRACE_BIN names another, TRACE_ARGS
#                                             adds flags), its stamps as OUT/NAME.trace, the median and
#                                             trace_summary.py's table printed
run_steps() {
  local s
  for s in ${STEPS:-$1}; do
    echo "==== $s"
    step "$s"
  done
}
session_start() {
  . "$(dirname "${BASH_SOURCE[0]}")/gpu_env.sh"
  mkdir -p "$1"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
}
verify_configs() {
  local bin=$1 out=$2 mode=$3 marker=$4 problems=$5 configs=$6 cfg json
  shift 6
  local only=()
  [ "$(wc -w <<<"$problems")" -eq 1 ] && only=(--problem "$problems")
  for cfg in $configs; do
    json="$out/verify_${mode}_$(basename "$cfg")"
    env "$@" timeout 300 "$bin" --config "$cfg" "${only[@]}" --variant persistent --verify-only --quiet --json "$json" \
      >>"$out/verify.log" 2>&1
    echo "$mode $cfg exit $? $(python3 -c "
import json,sys,collections
r=[x for x in json.load(open(sys.argv[1]))['results'] if x['problem'] in sys.argv[3].split()]
print(dict(collections.Counter(x['status'] for x in r)), sum(sys.argv[2] in (x.get('plan') or '') for x in r), 'plans with:', sys.argv[2])
" "$json" "$marker" "$problems")"
  done
}
verify_gemms() {
  verify_configs "$1" "$2" "$3" "$4" "gemm group_gemm" \
    "configs/gpumode/gemm.json configs/gpumode/group_gemm.json configs/gemm_edges.json configs/smoke.json" "${@:5}"
}
verify_local_modes() {
  local bin=$1 out=$2 knob=$3 marker=$4 lg v
  for lg in 1 2; do
    for v in 0 1; do
      verify_gemms "$bin" "$out" "stream-lg$lg-$v" "$marker" NVFP4_PERSISTENT_TOKENS=stream \
        NVFP4_PERSISTENT_LOCAL_GROUPS=$lg "$knob=$v"
    done
  done
}
verify_groups() {
  verify_configs "$1" "$2" "$3" "$4" group_gemm \
    "configs/gpumode/group_gemm.json configs/gemm_edges.json configs/smoke.json" "${@:5}"
}
# VERIFY (verify_gemms or verify_groups) of BIN's plans by default and with the tokens forced to
# decoder CTAs at 0, 1 and 2 local groups (the decoder-CTA kernels' every start).
verify_token_paths() {
  local verify=$1 bin=$2 out=$3 lg
  "$verify" "$bin" "$out" default decoded
  for lg in 0 1 2; do
    "$verify" "$bin" "$out" "stream-lg$lg" decoded NVFP4_PERSISTENT_TOKENS=stream NVFP4_PERSISTENT_LOCAL_GROUPS=$lg
  done
}
sanitize_run() {
  local bin=$1 out=$2 prob=$3 shape=$4 tool
  shift 4
  for tool in memcheck racecheck synccheck; do
    env "$@" timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 "$bin" --problem "$prob" --shape "$shape" \
      --variant persistent --verify-only --quiet --json "$out/san.json" >"$out/$tool.txt" 2>&1
    echo "$tool exit $? $(grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|Internal" "$out/$tool.txt" | tail -n 1)," \
      "$(grep -c "Race reported.*wgmma" "$out/$tool.txt") in ours; $(python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))['results']; print([x['status'] for x in r], r[0].get('plan','')[:110])" "$out/san.json")"
  done
}
gpu_tests_run() {
  timeout "${3:-400}" .carry/new/gpu_tests --gtest_filter="$2" >"$1/gpu_tests.log" 2>&1
  echo "gpu_tests exit $?"
  grep -E "^\[  (PASSED|FAILED) |^\[       OK|FAILED TEST|Failure" "$1/gpu_tests.log" | head -n 20
}
# ab.py (persistent, cupti, ROUNDS rounds, default 5) on each "PROBLEM SHAPE" case, BUILDS ab.py's
# name=BIN[:VAR=VAL] separated by spaces:
#   ab_cases OUT "BUILDS" "PROBLEM SHAPE"...
ab_cases() {
  local out=$1 builds=() b c prob shape
  for b in $2; do builds+=(--build "$b"); done
  shift 2
  for c in "$@"; do
    read -r prob shape <<<"$c"
    echo "== $prob $shape"
    python3 scripts/dev/ab.py --rounds "${ROUNDS:-5}" --out "$out/ab_${prob}_${shape%%,*}" "${builds[@]}" \
      -- --problem "$prob" --shape "$shape" --variant persistent --timer cupti --no-floor --max-time 0.4 2>&1 | tail -n 2
  done
}
mode_rounds() {
  local out=$1 shapes=$2 shape r m n b vars
  shift 2
  for shape in $shapes; do
    for r in $(seq "${ROUNDS:-3}"); do
      for m in "$@"; do
        IFS=: read -r n b vars <<<"$m"
        env $vars ".carry/$b/nvfp4bench" --problem gemm --shape "$shape" --variant persistent --timer cupti --no-floor \
          --max-time 0.4 --quiet --json "$out/mode.json" >/dev/null 2>"$out/mode.err"
        echo "$shape $n $r exit $? $(python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; c=r.get('check') or {}
print(r['status'], (r.get('timing') or {}).get('median_us'), c.get('max_abs'), '|', r.get('plan'))" "$out/mode.json" 2>&1 |
          tail -1) $(tail -n 1 "$out/mode.err")"
        rm -f "$out/mode.json"
      done
    done
  done
}
case_medians() {
  python3 -c "
import json,sys
for r in json.load(open(sys.argv[1]))['results']:
    print(sys.argv[2], r['variant'], r['status'], (r.get('timing') or {}).get('median_us'))" "$1" "$2"
}
ab_problems() {
  local out=$1 name=$2 problems=$3 prob
  shift 3
  local builds=()
  for b in "$@"; do builds+=(--build "$b"); done
  for prob in $problems; do
    python3 scripts/dev/ab.py --rounds "${ROUNDS:-3}" --out "$out/${name}_$prob" "${builds[@]}" \
      -- --config "configs/gpumode/$prob.json" --role benchmark --variant persistent --timer cupti --no-floor \
      --max-time "${MAXT:-1}" | tee "$out/${name}_$prob.txt"
  done
}
default_report() {
  "$1" --config configs/default.json --samples --json "$2/$3.json" --csv "$2/$3.csv" --markdown "$2/$3.md" \
    --quiet >"$2/$3.log" 2>&1
  echo "$3 exit $? $(tail -n 1 "$2/$3.log")"
}
session_args() {
  OUT=$1
  shift
  STEPS=${*:-}
  NEW=.carry/new/nvfp4bench BASE=.carry/base/nvfp4bench
  session_start "$OUT"
}
trace_run() {
  local out=$1 name=$2 prob=$3 shape=$4
  shift 4
  rm -f "$out/$name.trace"
  # shellcheck disable=SC2086  # TRACE_ARGS: flags split on spaces
  env NVFP4_TRACE_OUT="$out/$name.trace" "$@" "${TRACE_BIN:-.carry/trace/nvfp4bench}" --problem "$prob" --shape "$shape" \
    --variant persistent --timer cupti --no-floor --max-time 0.3 ${TRACE_ARGS:-} --quiet --json "$out/$name.json" \
    >/dev/null 2>&1
  echo "==== $name $* exit $? $(python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print(r['status'], r['timing']['median_us'], 'us')" "$out/$name.json")"
  python3 scripts/dev/trace_summary.py "$out/$name.trace"
}
trace_table() {
  trace_run "$@" 2>/dev/null | head -n 1
  python3 scripts/dev/p183_summary.py "$1/$2.trace" | grep -E "${TRACE_ROWS:-.}" | grep -E -v "${TRACE_SKIP:-^$}"
}
trace_alternate() {
  local out=$1 runs=$2 rows=$3 prob=$4 shape=$5 i b
  for i in $runs; do
    for b in a b; do
      TRACE_BIN=.carry/trace-$b/nvfp4bench TRACE_ROWS=$rows trace_table "$out" "$b$i" "$prob" "$shape"
    done
  done
}
trace_spread() {
  trace_run "$@" 2>/dev/null | head -n "${TRACE_LINES:-12}"
  python3 scripts/dev/cta_spread.py "$1/$2.trace"
}
