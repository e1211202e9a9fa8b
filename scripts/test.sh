#!/usr/bin/env bash
# The tests: set up and build (scripts/setup.sh, with the browser test's Chromium, chromedriver
# and Selenium), then run every CTest test. Without a GPU the GPU tests report as skipped (exit
# code 77 -> "Not Run"); the host tests, the browser test among them, must pass.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
scripts/setup.sh --browser
ctest --test-dir "$BUILD_DIR" --output-on-failure "$@"
