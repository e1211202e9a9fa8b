#!/usr/bin/env bash
# ncu.sh: Nsight Compute profile of ONE case (one problem, one shape, one variant).
#
# nvfp4bench --profile runs each selected case's kernel once inside an NVTX push/pop range named
# "<problem>/<shape>/<variant>"; ncu profiles only the kernels inside that range, at the GPU's own
# clocks (--clock-control none, as the timing runs see them).
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: scripts/ncu.sh --problem P --shape S --variant V [-o OUT] [--source] [extra nvfp4bench args]

  --problem P     gemv | gemm | dual_gemm | group_gemm
  --shape S       one shape, e.g. 7168x16384x1
  --variant V     one variant, e.g. vectorized
  -o, --out OUT   report name (ncu adds .ncu-rep); default results/ncu/<problem>_<shape>_<variant>
  --source        also sample where the warps wait, instruction by instruction (PC sampling): writes
                  OUT.source.csv (the SASS with its samples per stall reason) and prints
                  scripts/dev/pcsamp_summary.py's summary of it
  -h, --help      this text
Anything else is passed to nvfp4bench (e.g. --seed 7 --dist uniform).

Environment: NVFP4BENCH  binary (default build/nvfp4bench)
             NCU         Nsight Compute CLI (default ncu)
Example: scripts/ncu.sh --problem gemv --shape 7168x16384x1 --variant vectorized
USAGE
}

die() {
  echo "ncu.sh: $*" >&2
  exit 2
}

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
problem="" shape="" variant="" out="" source=0
extra=()
while (($#)); do
  case "$1" in
    -h | --help) usage; exit 0 ;;
    --problem) (($# >= 2)) || die "--problem needs a value"; problem=$2; shift 2 ;;
    --problem=*) problem=${1#*=}; shift ;;
    --shape) (($# >= 2)) || die "--shape needs a value"; shape=$2; shift 2 ;;
    --shape=*) shape=${1#*=}; shift ;;
    --variant) (($# >= 2)) || die "--variant needs a value"; variant=$2; shift 2 ;;
    --variant=*) variant=${1#*=}; shift ;;
    -o | --out) (($# >= 2)) || die "$1 needs a value"; out=$2; shift 2 ;;
    --out=*) out=${1#*=}; shift ;;
    --source) source=1; shift ;;
    *) extra+=("$1"); shift ;;
  esac
done

if [[ -z $problem || -z $shape || -z $variant ]]; then
  usage >&2
  exit 2
fi
[[ $variant != *,* ]] || die "one variant only, got '$variant'"

bin=${NVFP4BENCH:-$repo/build/nvfp4bench}
ncu=${NCU:-ncu}
[[ -x $bin ]] || die "nvfp4bench not found at '$bin' (build it, or set NVFP4BENCH)"
command -v "$ncu" >/dev/null 2>&1 || die "'$ncu' not found (install Nsight Compute, or set NCU)"

# The range name, with ncu's NVTX quantifiers (@ , [ ] / * + and \) escaped by a backslash; the
# trailing "/" selects a push/pop range.
range="$problem/$shape/$variant"
filter="$(printf '%s' "$range" | sed 's/[][@,/*+\\]/\\&/g')/"

if [[ -z $out ]]; then
  out="$repo/results/ncu/${problem}_${shape//[^A-Za-z0-9._-]/_}_${variant}"
fi
mkdir -p "$(dirname "$out")"

sections=(--section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis)
((source)) && sections+=(--section SourceCounters --section WarpStateStats --warp-sampling-interval 0)
cmd=("$ncu" --clock-control none --nvtx --nvtx-include "$filter" "${sections[@]}"
  --metrics gpu__time_duration.sum -f -o "$out"
  "$bin" --problem "$problem" --shape "$shape" --variant "$variant" ${extra[@]+"${extra[@]}"} --profile)
printf '+' >&2
printf ' %q' "${cmd[@]}" >&2
printf '\n' >&2
"${cmd[@]}"
echo "ncu.sh: report $out.ncu-rep (range '$range')" >&2
if ((source)); then
  # One kernel's SASS per table in the source page (a case with several kernels: several tables).
  "$ncu" -i "$out.ncu-rep" --page source --csv --print-source sass >"$out.source.csv"
  echo "ncu.sh: instructions and their samples in $out.source.csv" >&2
  python3 "$repo/scripts/dev/pcsamp_summary.py" "$out.source.csv" stall_no_inst 30
fi
