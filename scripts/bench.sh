#!/usr/bin/env bash
# The main job: set up and build (scripts/setup.sh), then run nvfp4bench.
#   scripts/bench.sh                      -> configs/default.json, reports in out/default.{json,csv,md}
#   scripts/bench.sh [nvfp4bench args]    -> exactly those arguments
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
scripts/setup.sh >&2
if [ $# -eq 0 ]; then
  mkdir -p out
  set -- --config configs/default.json --json out/default.json --csv out/default.csv --markdown out/default.md
fi
exec "$BUILD_DIR/nvfp4bench" "$@"
