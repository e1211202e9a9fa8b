#!/usr/bin/env bash
# perf-regression.sh: run a config and compare the result with this GPU's baseline report.
#
# Exit status is nvfp4bench compare's: 0 no regression, 4 a case is SLOWER beyond the threshold
# (and beyond both runs' robust noise, which is capped at 3x the threshold) or FAILED, 5 a case is
# too noisy to judge (NOISY; ALLOW_NOISY=1 accepts it), 2 a report could not be read or written;
# other non-zero values mean the benchmark run itself produced no report.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: scripts/perf-regression.sh [config] [baseline.json] [-- extra nvfp4bench args]

  config          default configs/default.json
  baseline.json   default results/baseline-<gpu>.json, <gpu> from nvidia-smi's name, lower case,
                  spaces to dashes (e.g. results/baseline-nvidia-h200.json)
  -h, --help      this text

Environment: THRESHOLD    percent change that counts (default 5)
             ALLOW_NOISY  1: NOISY cases do not fail the check (compare --allow-noisy)
             NVFP4BENCH   binary (default build/nvfp4bench)
             OUT_DIR      where the new JSON and Markdown go (default a new temporary directory)
Make a baseline: run once, then copy the printed JSON path to results/baseline-<gpu>.json.
USAGE
}

die() {
  echo "perf-regression.sh: $*" >&2
  exit 2
}

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
positional=()
extra=()
while (($#)); do
  case "$1" in
    -h | --help) usage; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    -*) die "unknown option '$1' (nvfp4bench options go after --)" ;;
    *) positional+=("$1"); shift ;;
  esac
done
((${#positional[@]} <= 2)) || { usage >&2; exit 2; }

config=${positional[0]:-$repo/configs/default.json}
threshold=${THRESHOLD:-5}
bin=${NVFP4BENCH:-$repo/build/nvfp4bench}
[[ -x $bin ]] || die "nvfp4bench not found at '$bin' (build it, or set NVFP4BENCH)"
[[ -f $config ]] || die "config '$config' not found"

# GPU name of the device the run uses (the first of CUDA_VISIBLE_DEVICES, if set).
gpu=""
if command -v nvidia-smi >/dev/null 2>&1; then
  sel=()
  if [[ -n ${CUDA_VISIBLE_DEVICES:-} ]]; then sel=(-i "${CUDA_VISIBLE_DEVICES%%,*}"); fi
  name=$(nvidia-smi --query-gpu=name --format=csv,noheader ${sel[@]+"${sel[@]}"} 2>/dev/null | head -n 1 || true)
  gpu=$(printf '%s' "$name" | tr '[:upper:]' '[:lower:]' | sed -e 's/^ *//' -e 's/ *$//' -e 's/  */-/g')
fi

if ((${#positional[@]} >= 2)); then
  baseline=${positional[1]}
else
  [[ -n $gpu ]] || die "cannot name the GPU (nvidia-smi failed); pass the baseline explicitly"
  baseline=$repo/results/baseline-$gpu.json
fi
[[ -f $baseline ]] || die "baseline '$baseline' not found (make one: run this script, copy the new JSON there)"

out_dir=${OUT_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/nvfp4bench-perf.XXXXXX")}
mkdir -p "$out_dir"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
new_json=$out_dir/${gpu:-gpu}-$stamp.json
markdown=$out_dir/${gpu:-gpu}-$stamp-compare.md

echo "perf-regression.sh: running $config -> $new_json" >&2
run_rc=0
"$bin" --config "$config" --json "$new_json" ${extra[@]+"${extra[@]}"} || run_rc=$?
if [[ ! -s $new_json ]]; then
  echo "perf-regression.sh: the run wrote no report (exit $run_rc)" >&2
  exit $((run_rc ? run_rc : 3))
fi
((run_rc == 0)) || echo "perf-regression.sh: the run exited $run_rc; failed cases show as FAILED below" >&2

rc=0
noisy_flag=()
[[ ${ALLOW_NOISY:-0} == 1 ]] && noisy_flag=(--allow-noisy)
"$bin" compare "$baseline" "$new_json" --threshold "$threshold" --markdown "$markdown" ${noisy_flag[@]+"${noisy_flag[@]}"} || rc=$?
echo "perf-regression.sh: baseline $baseline, new $new_json, table $markdown (exit $rc)" >&2
exit "$rc"
