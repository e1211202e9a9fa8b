#!/usr/bin/env bash
# Installs what a fresh Debian/Ubuntu machine lacks (build tools, CLI11, fmt, nlohmann-json,
# GoogleTest, ccache, Chart.js), then configures and builds into ${BUILD_DIR:-build}.
# The CUDA toolkit (nvcc, cuBLASLt, CUPTI) must already be installed (it is not a Debian package
# we can pin); the script says so and stops when nvcc is missing.
#   scripts/setup.sh --browser   also installs what the browser test needs (scripts/test.sh
#                                passes it): Chromium, chromedriver and Selenium, all from Debian.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
BROWSER=0
[ "${1:-}" = "--browser" ] && BROWSER=1

need=()
dpkg -s cmake >/dev/null 2>&1 || need+=(cmake)
command -v ninja >/dev/null 2>&1 || need+=(ninja-build)
command -v g++ >/dev/null 2>&1 || need+=(g++)
command -v ccache >/dev/null 2>&1 || need+=(ccache)
[ -f /usr/share/cmake/CLI11/CLI11Config.cmake ] || [ -f /usr/lib/cmake/CLI11/CLI11Config.cmake ] || need+=(libcli11-dev)
[ -d /usr/lib/x86_64-linux-gnu/cmake/fmt ] || [ -d /usr/lib/cmake/fmt ] || [ -d /usr/lib/aarch64-linux-gnu/cmake/fmt ] || need+=(libfmt-dev)
[ -f /usr/include/nlohmann/json.hpp ] || need+=(nlohmann-json3-dev)
[ -f /usr/include/gtest/gtest.h ] || need+=(libgtest-dev)
# Chart.js, embedded into the binary for the HTML report (CMakeLists.txt).
[ -f /usr/share/javascript/chart.js/chart.min.js ] || need+=(libjs-chart.js)
if [ "$BROWSER" -eq 1 ]; then  # tests/browser: headless Chromium driven through Selenium
  command -v chromium >/dev/null 2>&1 || need+=(chromium)
  [ -x /usr/bin/chromedriver ] || need+=(chromium-driver)
  { [ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import selenium" >/dev/null 2>&1; } || need+=(python3-selenium)
fi
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

if ! command -v nvcc >/dev/null 2>&1; then
  if [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH
  else echo "setup: nvcc not found: install the CUDA toolkit (12.8 or newer)" >&2; exit 2; fi
fi

# Configure and build quietly; the log is printed only when something fails.
mkdir -p "$BUILD_DIR"
log="$BUILD_DIR/setup.log"
if ! { [ -f "$BUILD_DIR/build.ninja" ] || cmake -S . -B "$BUILD_DIR" -G Ninja ${CMAKE_ARGS:-}; } >"$log" 2>&1 ||
   ! cmake --build "$BUILD_DIR" -j "$(nproc)" >>"$log" 2>&1; then
  tail -n 60 "$log" >&2
  echo "setup: build failed (full log: $log)" >&2
  exit 2
fi
