#!/usr/bin/env bash
# The tests: set up and build (scripts/setup.sh), then run every CTest test. Without a GPU the
# GPU tests report as skipped (exit code 77 -> "Not Run"), the host tests must pass.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
scripts/setup.sh
ctest --test-dir "$BUILD_DIR" --output-on-failure "$@"
