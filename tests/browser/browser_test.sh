#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# browser_test.sh: renders the committed default report and a compare to HTML with the binary,
# then checks both pages in headless Chromium (browser_test.py). Needs no GPU; needs Chromium,
# chromedriver and Selenium, which `scripts/setup.sh --browser` (run by scripts/test.sh) installs
# from Debian. Without them the test FAILS with a message saying so: it is never skipped.
# Run by CTest as: NVFP4BENCH=<path to nvfp4bench> bash tests/browser/browser_test.sh
#   BROWSER_TEST_SCREENSHOT=FILE.png also saves a full-page screenshot of the report page.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
BIN=${NVFP4BENCH:?set NVFP4BENCH to the nvfp4bench binary}
REPORT=${BROWSER_TEST_REPORT:-$SRC/results/2026-11-21_nvidia-h200_66c2e6d1ee40_default.json}
BASE=$SRC/results/baseline-nvidia-h200.json
NEW=$SRC/results/2026-11-21_nvidia-h100_d5bd43931f0c_default.json

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$BIN" render "$REPORT" --html "$TMP/report.html"
# A report with a plugin and gpu-mode submissions (their "Your kernels" card).
OWN=$SRC/results/2026-11-23_nvidia-h100_ebe8113fece4_plugin-and-submissions.json
"$BIN" render "$OWN" --html "$TMP/own.html"
rc=0
"$BIN" compare "$BASE" "$NEW" --html "$TMP/compare.html" >/dev/null || rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ] && [ "$rc" -ne 5 ]; then
  echo "browser_test: compare failed with exit code $rc" >&2
  exit 1
fi

# Debian's python3 has python3-selenium; another python3 on PATH may have Selenium from PyPI.
PY=""
for p in /usr/bin/python3 python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c "import selenium" >/dev/null 2>&1; then PY=$p; break; fi
done
if [ -z "$PY" ]; then
  echo "browser_test: FAILED: no python3 with Selenium: run scripts/setup.sh --browser (Debian python3-selenium)" >&2
  exit 1
fi
args=(--report "$REPORT" --report-html "$TMP/report.html" --compare-html "$TMP/compare.html"
      --own-report "$OWN" --own-html "$TMP/own.html")
[ -n "${BROWSER_TEST_SCREENSHOT:-}" ] && args+=(--screenshot "$BROWSER_TEST_SCREENSHOT")
"$PY" "$HERE/browser_test.py" "${args[@]}" || { rc=$?; echo "browser_test: FAILED (exit code $rc)" >&2; exit 1; }
