#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cli_test.sh: the nvfp4bench binary's usage errors and exit codes, and scripts/ncu.sh's; needs no GPU.
# Run by CTest as: NVFP4BENCH=<path to nvfp4bench> bash tests/cli/cli_test.sh
#   usage error -> exit 2 and exactly one line on stderr naming the bad value
#   --help      -> exit 0
#   no GPU      -> exit 3 and a one-line message containing "no CUDA GPU" (skipped on a GPU machine)
set -u

BIN=${NVFP4BENCH:-}
if [ -z "$BIN" ] || [ ! -x "$BIN" ]; then
  echo "cli_test.sh: set NVFP4BENCH to the nvfp4bench binary (got '${BIN}')" >&2
  exit 2
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
RUN=()
if command -v timeout >/dev/null 2>&1; then RUN=("$(command -v timeout)" 120); fi
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS  $1"; }
fail() { failed=$((failed + 1)); echo "FAIL  $1: $2"; echo "      stderr: $(head -c 400 "$TMP/err")"; }

# run ARGS...: runs the binary, stdout to $TMP/out, stderr to $TMP/err, exit code in $rc.
# run_env VAR=VALUE... -- ARGS...: `run` with those variables set for the binary only.
run_env() {
  local vars=()
  while [ "$1" != "--" ]; do vars+=("$1"); shift; done
  shift
  env "${vars[@]}" "${RUN[@]}" "$BIN" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
  rc=$?
}
run() { run_env -- "$@"; }

# Number of non-empty lines in a file.
lines() { grep -c . "$1" || true; }

# expect_usage NAME TEXT ARGS...: exit code 2, one stderr line, which contains TEXT.
expect_usage() {
  local name=$1 text=$2
  shift 2
  run "$@"
  if [ "$rc" -ne 2 ]; then fail "$name" "exit code $rc, expected 2"; return; fi
  local n
  n=$(lines "$TMP/err")
  if [ "$n" -ne 1 ]; then fail "$name" "$n lines on stderr, expected 1"; return; fi
  if ! grep -qF -- "$text" "$TMP/err"; then fail "$name" "stderr does not mention '$text'"; return; fi
  pass "$name"
}

# ---- usage errors ----
expect_usage "unknown problem" "gemx" --problem gemx --shape 128x256x256
expect_usage "bad shape (trailing x)" "12x" --problem gemm --shape 12x
expect_usage "bad shape (zero)" "128x0x256" --problem gemm --shape 128x0x256
expect_usage "bad shape (K rule)" "128x256x100" --problem gemm --shape 128x256x100
expect_usage "gemv shape with 2 dims" "128x256" --problem gemv --shape 128x256
expect_usage "unknown variant" "fast" --problem gemm --shape 128x256x256 --variant naive,fast
expect_usage "--shape without --problem" "--problem" --shape 128x256x256
expect_usage "--problem without --shape" "--shape" --problem gemm
expect_usage "unknown flag" "--frobnicate" --frobnicate
expect_usage "negative tolerance" "--rtol" --problem gemm --shape 128x256x256 --rtol -1

printf '{\n  "seed": 1111,\n  "cases": [\n' >"$TMP/malformed.json"
expect_usage "malformed config" "$TMP/malformed.json" --config "$TMP/malformed.json"
printf '{"cases": [{"problem": "gemm", "shape": "128x256x256", "colour": "red"}]}\n' >"$TMP/unknown_key.json"
expect_usage "config with an unknown key" "cases[0].colour" --config "$TMP/unknown_key.json"
printf '{"cases": [{"problem": "gemm", "shape": "128x0x256"}]}\n' >"$TMP/bad_shape.json"
expect_usage "config with a bad shape" "cases[0].shape" --config "$TMP/bad_shape.json"
expect_usage "missing config" "$TMP/absent.json" --config "$TMP/absent.json"
expect_usage "unwritable --json path" "$TMP/no_such_dir" --problem gemm --shape 128x256x256 --json "$TMP/no_such_dir/out.json"
expect_usage "unwritable --csv path" "$TMP/no_such_dir" --problem gemm --shape 128x256x256 --csv "$TMP/no_such_dir/out.csv"
expect_usage "unknown timer" "--timer" --problem gemm --shape 128x256x256 --timer stopwatch
expect_usage "zero batch" "--batch" --problem gemm --shape 128x256x256 --batch 0
expect_usage "bad --sol" "--sol" --problem gemm --shape 128x256x256 --sol guessed

# ---- the four bad-input answers of issue 8 ----
printf '{"tolerance": {"rtol": 1e400}, "cases": [{"problem": "gemm", "shape": "128x256x256"}]}\n' >"$TMP/overflow.json"
expect_usage "config number overflow names file and field" "$TMP/overflow.json: tolerance.rtol: 1e400" --config "$TMP/overflow.json"
mkdir -p "$TMP/a_directory"
expect_usage "--config given a directory" "is a directory" --config "$TMP/a_directory"
if grep -qF "malformed" "$TMP/err"; then fail "--config directory is not 'malformed'" "says malformed"; else pass "--config directory is not 'malformed'"; fi
expect_usage "--dump directory that cannot be created" "--dump /proc/nvfp4bench_dump" --problem gemm --shape 128x256x256 --dump /proc/nvfp4bench_dump
run compare "$TMP/absent_base.json" "$TMP/absent_new.json"
if grep -q "^nvfp4bench: error: compare: " "$TMP/err" && [ "$(lines "$TMP/err")" -eq 1 ]; then pass "compare error prefix"
else fail "compare error prefix" "stderr does not begin 'nvfp4bench: error: compare: '"; fi
run compare "$TMP/only_one.json"
if grep -q "^nvfp4bench: error: compare: " "$TMP/err"; then pass "compare usage error prefix"
else fail "compare usage error prefix" "stderr does not begin 'nvfp4bench: error: compare: '"; fi

# ---- compare: unreadable input is exit code 2 ----
run compare "$TMP/absent_base.json" "$TMP/absent_new.json"
if [ "$rc" -eq 2 ]; then pass "compare unreadable"; else fail "compare unreadable" "exit code $rc, expected 2"; fi
run compare "$TMP/only_one.json"
if [ "$rc" -eq 2 ]; then pass "compare usage"; else fail "compare usage" "exit code $rc, expected 2"; fi

# ---- render and compare --html: no GPU needed ----
SRC=$(cd "$(dirname "$0")/../.." && pwd)
REPORT="$SRC/results/2026-11-21_nvidia-h200_66c2e6d1ee40_default.json"
run render "$REPORT" --html "$TMP/r.html" --markdown "$TMP/r.md" --csv "$TMP/r.csv"
if [ "$rc" -eq 0 ] && [ -s "$TMP/r.html" ] && [ -s "$TMP/r.md" ] && [ -s "$TMP/r.csv" ] && [ ! -s "$TMP/err" ]; then
  pass "render writes HTML, Markdown and CSV"
else fail "render writes HTML, Markdown and CSV" "exit code $rc"; fi
run render "$REPORT"
if [ "$rc" -eq 0 ] && grep -q "vectorized" "$TMP/out"; then pass "render without outputs prints the table"
else fail "render without outputs prints the table" "exit code $rc"; fi
expect_usage "render a missing report" "$TMP/absent.json" render "$TMP/absent.json"
expect_usage "render a file that is not a report" "schema" render "$SRC/configs/default.json"
run render "$REPORT" --html "$TMP/no_such_dir/r.html"
if [ "$rc" -eq 3 ] && grep -q "^nvfp4bench: error: render: " "$TMP/err"; then pass "render to an unwritable path"
else fail "render to an unwritable path" "exit code $rc, expected 3"; fi
# A fixed report against itself (every case SAME): the baselines move with the code.
run compare "$REPORT" "$REPORT" --html "$TMP/c.html" --allow-noisy
if [ "$rc" -eq 0 ] && grep -q '"kind":"nvfp4bench.compare"' "$TMP/c.html"; then pass "compare --html"
else fail "compare --html" "exit code $rc or no compare data in the page"; fi

# ---- scripts/ncu.sh's usage errors and its --source summary (scripts/dev/pcsamp_summary.py): no GPU ----
NCUSH=("$SRC/scripts/ncu.sh")
env NVFP4BENCH="$BIN" "${NCUSH[@]}" --problem gemm --shape 128x256x256 --variant naive,vectorized >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 2 ] && [ "$(lines "$TMP/err")" -eq 1 ] && grep -qF "one variant only" "$TMP/err"; then pass "ncu.sh two variants"
else fail "ncu.sh two variants" "exit code $rc, expected 2 and one line naming the rule"; fi
env NVFP4BENCH="$BIN" NCU="$TMP/no_ncu" "${NCUSH[@]}" --problem gemm --shape 128x256x256 --variant naive --source \
  >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 2 ] && [ "$(lines "$TMP/err")" -eq 1 ] && grep -qF "no_ncu' not found" "$TMP/err"; then pass "ncu.sh without ncu"
else fail "ncu.sh without ncu" "exit code $rc, expected 2 and one line naming the missing tool"; fi
# Two kernels' tables as ncu --page source --csv --print-source sass writes them (columns cut down).
cat >"$TMP/source.csv" <<'CSV'
"Kernel Name","kernel_a"
"Address","Source","Warp Stall Sampling (All Samples)","stall_no_inst","stall_wait","Instructions Executed"
"0x10","      LDC R1, c[0x0][0x28]","5","4","1","10"
"0x20","      HGMMA.64x128x16.F32 R24, R100","30","0","10","160"
"0x30","      @!P0  BRA 0x20","30","1","5","160"
"Kernel Name","kernel_b"
"Address","Source","Warp Stall Sampling (All Samples)","stall_no_inst","stall_wait","Instructions Executed"
"0x10","      EXIT","2","2","0","4"
CSV
python3 "$SRC/scripts/dev/pcsamp_summary.py" "$TMP/source.csv" stall_no_inst 1 >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 0 ] && grep -qF "== kernel_a" "$TMP/out" && grep -qF "3 instructions, 65 samples" "$TMP/out" &&
  grep -qF "wait 16 (24.6%), no_inst 5 (7.7%)" "$TMP/out" && grep -qE "^ +1- +2 +2 +160 +60 +1 +HGMMA" "$TMP/out" &&
  grep -qF "== kernel_b" "$TMP/out" && grep -qF "1 instructions, 2 samples" "$TMP/out"; then
  pass "pcsamp_summary.py: totals, shares and runs per kernel"
else fail "pcsamp_summary.py: totals, shares and runs per kernel" "exit code $rc; output: $(head -c 300 "$TMP/out")"; fi

# ---- --plugin: every load error is exit 2 and one line naming the file and the rule ----
PLUG=${NVFP4_PLUGIN_DIR:-}
if [ -n "$PLUG" ] && [ -f "$PLUG/example_plugin.so" ]; then
  expect_usage "--plugin missing file" "--plugin '$TMP/absent.so': no such file" --plugin "$TMP/absent.so" list
  expect_usage "--plugin not a shared library" "cannot be loaded as a shared library" --plugin "$SRC/README.md" list
  expect_usage "--plugin without the entry point" "'$PLUG/fixture_no_entry.so': does not export the entry point" \
    --plugin "$PLUG/fixture_no_entry.so" list
  expect_usage "--plugin of another ABI version" "'$PLUG/fixture_bad_abi.so': plugin ABI version 99" \
    --plugin "$PLUG/fixture_bad_abi.so" list
  expect_usage "--plugin with a variant twice" "'$PLUG/fixture_dup_name.so': name clash" \
    --plugin "$PLUG/fixture_dup_name.so" list
  expect_usage "--plugin loaded twice" "name clash: plugin name 'example'" \
    --plugin "$PLUG/example_plugin.so" --plugin "$PLUG/example_plugin.so" list
  expect_usage "--plugin run errors come before the GPU check" "no such file" \
    --plugin "$TMP/absent.so" --problem gemm --shape 128x256x256
  expect_usage "--variant plugin:name without --plugin" "needs --plugin" --problem gemm --shape 128x256x256 --variant example:rowmajor
  expect_usage "--variant of a plugin that has no such variant" "--variant 'example:fast': no loaded plugin or submission" \
    --plugin "$PLUG/example_plugin.so" --problem gemm --shape 128x256x256 --variant example:fast
  run --plugin "$PLUG/example_plugin.so" list
  if [ "$rc" -eq 0 ] && grep -q "^gemm *example:rowmajor" "$TMP/out" && grep -q "^gemm *example:blocked" "$TMP/out" &&
     grep -q "^group_gemm *example:rowmajor" "$TMP/out" && grep -q "^gemv *example:rowmajor" "$TMP/out" &&
     grep -q "^dual_gemm *example:rowmajor" "$TMP/out" && grep -q "example_plugin.so (ABI version 1)" "$TMP/out"; then
    pass "--plugin list shows the plugin's variants"
  else fail "--plugin list shows the plugin's variants" "exit code $rc; stdout: $(head -c 300 "$TMP/out")"; fi
else
  echo "SKIP  --plugin tests (NVFP4_PLUGIN_DIR has no example_plugin.so)"
fi

# ---- --submission: a bad file is exit 2 and one line; no Python or no torch makes its cases SKIP ----
SUBS="$SRC/tests/submissions"
EX="$SRC/examples/submissions"
expect_usage "--submission missing file" "--submission '$TMP/absent.py': no such file" --submission "$TMP/absent.py" list
expect_usage "--submission run errors come before the GPU check" "no such file" \
  --submission "$TMP/absent.py" --problem gemm --shape 128x256x256
expect_usage "--python that is no executable" "--python '$TMP/nopython': no such executable file" \
  --python "$TMP/nopython" --submission "$SUBS/raises.py" list
expect_usage "--variant py:name without --submission" "needs --plugin PATH.so or --submission FILE.py" \
  --problem gemm --shape 128x256x256 --variant py:raises
expect_usage "--submission of one name twice" "name clash: py:raises is already" \
  --submission "$SUBS/raises.py" --submission "gemm=$SUBS/raises.py" list
run_env PATH=/nonexistent -- --submission "$SUBS/raises.py" list
if [ "$rc" -eq 0 ] && grep -q "^submission py:raises: .*its cases SKIP: no Python: python3 is not on PATH" "$TMP/out"; then
  pass "--submission without Python: its cases SKIP"
else fail "--submission without Python: its cases SKIP" "exit code $rc; stdout: $(tail -c 300 "$TMP/out")"; fi
if command -v python3 >/dev/null 2>&1; then
  expect_usage "--submission without custom_kernel" "--submission '$SUBS/no_kernel.py': defines no custom_kernel(data)" \
    --submission "$SUBS/no_kernel.py" list
  expect_usage "--submission with a syntax error" "--submission '$SUBS/syntax_error.py': line 4: SyntaxError" \
    --submission "$SUBS/syntax_error.py" list
  # A torch that cannot be imported (tests/submissions/fake_no_torch), the same on any machine.
  run_env PYTHONPATH="$SUBS/fake_no_torch" -- --submission "$EX/torch_submission.py" --submission "dual_gemm=$SUBS/raises.py" list
  if [ "$rc" -eq 0 ] && grep -q "^gemm *py:torch_submission" "$TMP/out" && grep -q "^group_gemm *py:torch_submission" "$TMP/out" &&
     grep -q "^dual_gemm *py:raises" "$TMP/out" && ! grep -q "^gemm *py:raises" "$TMP/out" &&
     grep -q "^submission py:torch_submission: $EX/torch_submission.py (python [0-9.]* .*; its cases SKIP: no torch in .*ModuleNotFoundError" "$TMP/out"; then
    pass "--submission without torch: listed for its problems, its cases SKIP"
  else fail "--submission without torch: listed for its problems, its cases SKIP" "exit code $rc; stdout: $(tail -c 400 "$TMP/out")"; fi
  run_env PYTHONPATH="$SUBS/fake_cpu_torch" -- --submission "$SUBS/raises.py" list
  if [ "$rc" -eq 0 ] && grep -q "^submission py:raises: .*its cases SKIP: torch 0.0+fixture-cpu in .* has no CUDA" "$TMP/out"; then
    pass "--submission with a torch without CUDA: its cases SKIP"
  else fail "--submission with a torch without CUDA: its cases SKIP" "exit code $rc; stdout: $(tail -c 300 "$TMP/out")"; fi
  if python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" >/dev/null 2>&1; then
    expect_usage "--submission that raises on import" "--submission '$SUBS/import_raises.py': importing it raised RuntimeError: fixture" \
      --submission "$SUBS/import_raises.py" list
  else
    echo "SKIP  --submission that raises on import (python3 has no torch with CUDA here; it would SKIP first)"
  fi
else
  echo "SKIP  --submission checks that need python3 (none on PATH)"
fi

# ---- help ----
run --help
if [ "$rc" -eq 0 ] && grep -qF -- "--shape" "$TMP/out"; then pass "--help"; else fail "--help" "exit code $rc or no usage text"; fi

# ---- no GPU ----
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIP  no-GPU exit code (nvidia-smi -L lists a GPU)"
else
  run --problem gemm --shape 128x256x256 --verify-only
  n=$(lines "$TMP/err")
  if [ "$rc" -ne 3 ]; then
    fail "no GPU" "exit code $rc, expected 3"
  elif [ "$n" -ne 1 ]; then
    fail "no GPU" "$n lines on stderr, expected 1"
  elif ! grep -qF "no CUDA GPU" "$TMP/err"; then
    fail "no GPU" "message does not contain 'no CUDA GPU'"
  else
    pass "no GPU"
  fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
