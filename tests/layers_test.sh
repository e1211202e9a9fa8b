#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# layers_test.sh: includes point only down the stages (src/README.md). A file in src/<stage>/ may
# include its own stage and the stages below it; kernels/ may include core/ and reference/ only.
# Run by CTest (label host): bash tests/layers_test.sh <source dir>
set -u
ROOT=${1:-$(dirname "$0")/..}
STAGES=(core data reference measure cli run report app)

rank() {
  local i
  for i in "${!STAGES[@]}"; do [ "${STAGES[$i]}" = "$1" ] && { echo "$i"; return; }; done
  echo -1
}

bad=0
check() {  # check FILE MAX_RANK ALLOWED_LIST(optional)
  local file=$1 max=$2 allowed=${3:-}
  local inc stage r
  while IFS= read -r inc; do
    stage=${inc%%/*}
    r=$(rank "$stage")
    [ "$r" -lt 0 ] && continue  # not a stage folder (system, generated, kernel-local header)
    if [ -n "$allowed" ]; then
      case " $allowed " in *" $stage "*) continue ;; esac
      echo "layers: $file includes \"$inc\": kernels may include only: $allowed"
      bad=$((bad + 1))
    elif [ "$r" -gt "$max" ]; then
      echo "layers: $file includes \"$inc\": $stage is above this file's stage"
      bad=$((bad + 1))
    fi
  done < <(sed -n 's/^[[:space:]]*#include "\([^"]*\)".*/\1/p' "$file")
}

for stage in "${STAGES[@]}"; do
  [ -d "$ROOT/src/$stage" ] || { echo "layers: src/$stage is missing"; bad=$((bad + 1)); continue; }
  for f in "$ROOT/src/$stage"/*; do
    case $f in *.cpp | *.hpp | *.cu | *.cuh) check "$f" "$(rank "$stage")" ;; esac
  done
done
while IFS= read -r f; do check "$f" 0 "core reference"; done < <(find "$ROOT/kernels" -name '*.c*' -o -name '*.h*' | sort)
for d in "$ROOT"/src/*/; do
  name=$(basename "$d")
  [ "$(rank "$name")" -ge 0 ] || { echo "layers: src/$name is not a known stage (add it to STAGES and src/README.md)"; bad=$((bad + 1)); }
  [ -f "$d/README.md" ] || { echo "layers: src/$name has no README.md"; bad=$((bad + 1)); }
done
if [ "$bad" -ne 0 ]; then echo "layers: $bad problem(s)"; exit 1; fi
echo "layers: every include points down the stages"
